import { Channel, type Provider, SendOutcomeCode } from '@ums/contracts';
import { classifyMittoItem, classifyMittoRequestError } from '@ums/domain';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import {
  bodyExcerpt,
  type BuiltRequest,
  codeField,
  isSuccess,
  jsonObject,
  missingResult,
  outcomeFor,
  retryAfterMs,
  stringField,
  unsendable,
} from './provider-request';

type MittoCredential = LoadedCredential<Provider.Mitto>;

/** Mitto's `responseCode` of a sent message. */
export const MITTO_SENT = '0';

/** The `to` Mitto takes: E.164 digits without the leading `+`. */
export function mittoReceiver(recipient: string): string {
  return recipient.startsWith('+') ? recipient.slice(1) : recipient;
}

/**
 * POST {base}/sms with `X-Mitto-API-Key`: one SMS per request, carrying our message id as its own
 * `reference` (returned in its delivery report). `type: auto` lets Mitto pick GSM or Unicode.
 */
export function mittoRequest(credential: MittoCredential, message: OutgoingMessage): BuiltRequest {
  if (message.channel !== Channel.Sms) {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ChannelUnsupported, `mitto cannot send ${message.channel}`),
    };
  }
  const text = message.content.text;
  if (text === undefined || text === '') {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ContentInvalid, 'an SMS needs text (no templates)'),
    };
  }
  return {
    ok: true,
    request: {
      path: '/sms',
      headers: {
        'x-mitto-api-key': credential.secret?.reveal() ?? '',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        from: credential.config.from,
        to: mittoReceiver(message.recipient),
        text,
        type: 'auto',
        reference: message.messageId,
      }),
    },
  };
}

/**
 * The outcome of one message from Mitto's answer: `responseCode` 0 with its `id` is accepted; a
 * non-zero `responseCode` is classified by that code (1 internal error: retryable; 2-8: permanent),
 * unless the HTTP status says throttling or a server error (429, 5xx: classified by the status, the
 * code kept). A 2xx without a readable `responseCode` may have been sent: retryable as ambiguous.
 */
export function mittoOutcome(
  message: OutgoingMessage,
  response: ProviderResponse,
  nowMs: number,
): SendOutcome {
  const json = jsonObject(response.body);
  const code = codeField(json, 'responseCode');
  const text = stringField(json, 'responseText');
  if (code === MITTO_SENT && isSuccess(response.status)) {
    return {
      messageId: message.messageId,
      kind: 'accepted',
      providerMessageId: stringField(json, 'id') ?? null,
    };
  }
  const statusDecides = response.status === 429 || response.status >= 500;
  if (code !== undefined && code !== MITTO_SENT && !statusDecides) {
    return outcomeFor(message, classifyMittoItem(code, text));
  }
  if (isSuccess(response.status)) {
    return outcomeFor(
      message,
      missingResult(
        `no responseCode 0 for reference ${message.messageId}: ${bodyExcerpt(response.status, response.body)}`,
      ),
    );
  }
  return outcomeFor(
    message,
    classifyMittoRequestError({
      status: response.status,
      code: code === MITTO_SENT ? undefined : code,
      message: text ?? bodyExcerpt(response.status, response.body),
      retryAfterMs: retryAfterMs(response.headers, nowMs),
    }),
  );
}
