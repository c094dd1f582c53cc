import { Channel, type Provider, SendOutcomeCode } from '@ums/contracts';
import { classifySesError } from '@ums/domain';
import { sign } from 'aws4';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import {
  bodyExcerpt,
  type BuiltRequest,
  isSuccess,
  jsonObject,
  outcomeFor,
  retryAfterMs,
  stringField,
  unsendable,
} from './provider-request';

type SesCredential = LoadedCredential<Provider.Ses>;

export const SES_SEND_PATH = '/v2/email/outbound-emails';
/** The EmailTag carrying our message id; SES puts it in every event it publishes (SNS). */
export const SES_MESSAGE_ID_TAG = 'ums_message_id';

/** SigV4's timestamp format: 20150830T123600Z. */
export function amzDate(now: Date): string {
  return now.toISOString().replace(/[:-]|\.\d{3}/g, '');
}

/**
 * POST {base}/v2/email/outbound-emails (SendEmail, simple text content), signed with AWS SigV4
 * for service `ses` in the credential's region by `aws4`. The secret is
 * `<accessKeyId>:<secretAccessKey>` (checked when the credential is loaded).
 */
export function sesRequest(credential: SesCredential, message: OutgoingMessage, now: Date): BuiltRequest {
  const { config } = credential;
  if (message.channel !== Channel.Email) {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ChannelUnsupported, `ses cannot send ${message.channel}`),
    };
  }
  const { text, subject } = message.content;
  if (text === undefined || text === '' || subject === undefined || subject.trim() === '') {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ContentInvalid, 'an e-mail needs a subject and text'),
    };
  }
  const body = JSON.stringify({
    FromEmailAddress: config.fromAddress,
    Destination: { ToAddresses: [message.recipient] },
    Content: {
      Simple: {
        Subject: { Data: subject, Charset: 'UTF-8' },
        Body: { Text: { Data: text, Charset: 'UTF-8' } },
      },
    },
    EmailTags: [{ Name: SES_MESSAGE_ID_TAG, Value: message.messageId }],
    ...(config.configurationSet === undefined ? {} : { ConfigurationSetName: config.configurationSet }),
  });
  const secret = credential.secret?.reveal() ?? '';
  const colon = secret.indexOf(':');
  const path = `${credential.endpoint.basePath}${SES_SEND_PATH}`;
  const signed = sign(
    {
      method: 'POST',
      host: new URL(credential.endpoint.origin).host,
      path,
      service: 'ses',
      region: config.region,
      body,
      headers: { 'Content-Type': 'application/json', 'X-Amz-Date': amzDate(now) },
    },
    { accessKeyId: secret.slice(0, colon), secretAccessKey: secret.slice(colon + 1) },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = String(value);
  }
  return { ok: true, request: { path: SES_SEND_PATH, headers, body } };
}

/** 200 with `MessageId` is accepted; errors are classified by the AWS error type, else the status. */
export function sesOutcome(message: OutgoingMessage, response: ProviderResponse, nowMs: number): SendOutcome {
  const json = jsonObject(response.body);
  if (isSuccess(response.status)) {
    return {
      messageId: message.messageId,
      kind: 'accepted',
      providerMessageId: stringField(json, 'MessageId') ?? null,
    };
  }
  // REST-JSON: the type is in the x-amzn-ErrorType header (what AWS SDKs read first), else the body.
  const header = response.headers['x-amzn-errortype'];
  const type =
    (typeof header === 'string' && header !== '' ? header : undefined) ??
    stringField(json, '__type') ??
    stringField(json, 'code');
  return outcomeFor(
    message,
    classifySesError({
      status: response.status,
      code: type,
      message:
        stringField(json, 'message') ??
        stringField(json, 'Message') ??
        bodyExcerpt(response.status, response.body),
      retryAfterMs: retryAfterMs(response.headers, nowMs),
    }),
  );
}
