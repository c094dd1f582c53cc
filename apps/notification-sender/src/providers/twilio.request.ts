import { Channel, type Provider, SendOutcomeCode } from '@ums/contracts';
import { classifyTwilioError } from '@ums/domain';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import {
  bodyExcerpt,
  type BuiltRequest,
  codeField,
  isSuccess,
  jsonObject,
  outcomeFor,
  retryAfterMs,
  stringField,
  unsendable,
} from './provider-request';

type TwilioCredential = LoadedCredential<Provider.Twilio>;

const WHATSAPP_PREFIX = 'whatsapp:';

/** The status callback URL of one message: the credential's URL plus `ums_message_id=<id>`. */
export function twilioStatusCallback(statusCallbackUrl: string, messageId: string): string {
  const separator = statusCallbackUrl.includes('?') ? '&' : '?';
  return `${statusCallbackUrl}${separator}ums_message_id=${encodeURIComponent(messageId)}`;
}

/**
 * POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded, Basic auth. SMS, or
 * WhatsApp through Twilio (both numbers prefixed `whatsapp:`); text only, since Twilio templates
 * need a Content SID we do not have. Our id rides in the per-message StatusCallback URL.
 */
export function twilioRequest(credential: TwilioCredential, message: OutgoingMessage): BuiltRequest {
  const { config } = credential;
  if (message.channel !== Channel.Sms && message.channel !== Channel.WhatsApp) {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ChannelUnsupported, `twilio cannot send ${message.channel}`),
    };
  }
  const text = message.content.text;
  if (text === undefined || text === '') {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ContentInvalid, 'a Twilio message needs text (no templates)'),
    };
  }
  const whatsApp = message.channel === Channel.WhatsApp;
  const address = (value: string): string =>
    whatsApp && !value.startsWith(WHATSAPP_PREFIX) ? `${WHATSAPP_PREFIX}${value}` : value;
  const form = new URLSearchParams();
  form.set('To', address(message.recipient));
  if (config.messagingServiceSid !== undefined) form.set('MessagingServiceSid', config.messagingServiceSid);
  else form.set('From', address(config.from ?? ''));
  form.set('Body', text);
  form.set('StatusCallback', twilioStatusCallback(config.statusCallbackUrl, message.messageId));
  const basic = Buffer.from(`${config.accountSid}:${credential.secret?.reveal() ?? ''}`, 'utf8').toString(
    'base64',
  );
  return {
    ok: true,
    request: {
      path: `/2010-04-01/Accounts/${config.accountSid}/Messages.json`,
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
    },
  };
}

/** 201 with `sid` is accepted; errors are classified by `code`, else the status. */
export function twilioOutcome(
  message: OutgoingMessage,
  response: ProviderResponse,
  nowMs: number,
): SendOutcome {
  const json = jsonObject(response.body);
  if (isSuccess(response.status)) {
    return {
      messageId: message.messageId,
      kind: 'accepted',
      providerMessageId: stringField(json, 'sid') ?? null,
    };
  }
  return outcomeFor(
    message,
    classifyTwilioError({
      status: response.status,
      code: codeField(json, 'code'),
      message: stringField(json, 'message') ?? bodyExcerpt(response.status, response.body),
      retryAfterMs: retryAfterMs(response.headers, nowMs),
    }),
  );
}
