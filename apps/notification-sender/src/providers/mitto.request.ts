import { Channel, type Provider, SendOutcomeCode } from '@ums/contracts';
import { classifyMittoItem, classifyMittoRequestError, type PermanentFailure } from '@ums/domain';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import {
  bodyExcerpt,
  type BulkRequest,
  bulkOutcomes,
  codeField,
  isSuccess,
  bulkItemOutcomes,
  jsonObject,
  outcomeFor,
  retryAfterMs,
  stringField,
  unsendable,
} from './provider-request';

type MittoCredential = LoadedCredential<Provider.Mitto>;

/** Messages per Mitto bulk request. */
export const MITTO_MAX_BATCH = 1000;

/**
 * POST {base}/sms/bulk with `X-Mitto-API-Key`: up to 1,000 SMS in one request, each carrying our
 * message id as `reference` (echoed in its result and in delivery callbacks).
 */
export function mittoRequest(credential: MittoCredential, messages: readonly OutgoingMessage[]): BulkRequest {
  const refused = new Map<string, PermanentFailure>();
  const items: { to: string; text: string; reference: string }[] = [];
  for (const message of messages) {
    if (message.channel !== Channel.Sms) {
      refused.set(
        message.messageId,
        unsendable(SendOutcomeCode.ChannelUnsupported, `mitto cannot send ${message.channel}`),
      );
    } else if (message.content.text === undefined || message.content.text === '') {
      refused.set(
        message.messageId,
        unsendable(SendOutcomeCode.ContentInvalid, 'an SMS needs text (no templates)'),
      );
    } else {
      items.push({ to: message.recipient, text: message.content.text, reference: message.messageId });
    }
  }
  if (items.length === 0) return { request: undefined, refused };
  return {
    request: {
      path: '/sms/bulk',
      headers: {
        'x-mitto-api-key': credential.secret?.reveal() ?? '',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ from: credential.config.from, messages: items }),
    },
    refused,
  };
}

/**
 * Per-item outcomes of a 2xx answer (accepted with Mitto's id, or rejected with a code), or the
 * whole request's failure for every sent item.
 */
export function mittoOutcomes(
  messages: readonly OutgoingMessage[],
  refused: ReadonlyMap<string, PermanentFailure>,
  response: ProviderResponse,
  nowMs: number,
): SendOutcome[] {
  const json = jsonObject(response.body);
  if (!isSuccess(response.status)) {
    const failure = classifyMittoRequestError({
      status: response.status,
      code: codeField(json, 'code'),
      message: stringField(json, 'message') ?? bodyExcerpt(response.status, response.body),
      retryAfterMs: retryAfterMs(response.headers, nowMs),
    });
    return bulkOutcomes(messages, refused, (message) => outcomeFor(message, failure));
  }
  return bulkItemOutcomes(messages, refused, response, json, {
    keyField: 'reference',
    providerIdField: 'id',
    keyLabel: 'reference',
    rejected: (item) => classifyMittoItem(stringField(item, 'code'), stringField(item, 'message')),
  });
}
