import {
  MessageStatus,
  ProviderEventKind,
  type ProviderEventV1,
  type ProviderReportedStatus,
} from '@ums/contracts';
import { callbackFailureReason } from './callback-failure-reason';
import {
  type CallbackContext,
  type CallbackParse,
  callbackEventId,
  cut,
  FieldReader,
  MAX_ERROR_CODE_LENGTH,
  MAX_ERROR_TEXT_LENGTH,
  ourMessageId,
} from './callback-parse';
import { isOptOutText } from './opt-out-keyword';

// `undelivered` is a carrier failure after sending, `failed` a message never sent, `canceled` a
// scheduled message withdrawn: all final failures for us.
const STATUSES: ReadonlyMap<string, ProviderReportedStatus> = new Map([
  ['sent', MessageStatus.Sent],
  ['delivered', MessageStatus.Delivered],
  ['read', MessageStatus.Read],
  ['undelivered', MessageStatus.Failed],
  ['failed', MessageStatus.Failed],
  ['canceled', MessageStatus.Failed],
]);
// Progress before sending says nothing a row does not already know.
const IGNORED = new Set(['queued', 'accepted', 'sending', 'scheduled', 'receiving', 'partially_delivered']);

/**
 * Reads a Twilio form callback: a status callback (`MessageStatus`) becomes a status event naming
 * our message id from the `ums_message_id` query parameter we put on the StatusCallback URL; an
 * incoming message (`SmsStatus=received`) becomes an inbound event. Twilio sends no event time, so
 * the arrival time stands in.
 */
export function parseTwilioCallback(
  params: readonly (readonly [string, string])[],
  query: { readonly umsMessageId?: string },
  context: CallbackContext,
): CallbackParse {
  const read = new FieldReader();
  const form = new Map<string, string>();
  for (const [name, value] of params) if (!form.has(name)) form.set(name, value);
  const sid = read.text(form.get('MessageSid') ?? form.get('SmsSid'), 'MessageSid', 256);
  const reported = form.get('MessageStatus') ?? form.get('SmsStatus');
  if (sid === undefined) return { ok: false, issues: read.issues };
  if (reported === 'received') {
    const from = read.text(form.get('From'), 'From', 320);
    const to = read.text(form.get('To'), 'To', 320);
    if (from === undefined || to === undefined) return { ok: false, issues: read.issues };
    const text = form.get('Body');
    const mediaRef = Number(form.get('NumMedia') ?? '0') > 0 ? form.get('MediaUrl0') : undefined;
    const mediaType = mediaRef === undefined ? undefined : form.get('MediaContentType0');
    const event: ProviderEventV1 = {
      eventId: callbackEventId('tw-in', sid),
      kind: ProviderEventKind.Inbound,
      provider: context.provider,
      credentialId: context.credentialId,
      inbound: {
        from,
        to,
        ...(text === undefined || text === '' ? {} : { text: text.slice(0, 65_536) }),
        ...(mediaRef === undefined ? {} : { mediaRef: mediaRef.slice(0, 2048) }),
        ...(mediaType === undefined ? {} : { mediaType: mediaType.slice(0, 128) }),
        providerMessageId: sid,
        optOut: isOptOutText(text),
        occurredAt: context.receivedAt,
      },
      receivedAt: context.receivedAt,
    };
    return { ok: true, events: [event], ignored: 0 };
  }
  if (reported === undefined || reported === '') {
    return { ok: false, issues: [{ field: 'MessageStatus', reason: 'must be a non-empty string' }] };
  }
  if (IGNORED.has(reported)) return { ok: true, events: [], ignored: 1 };
  const status = STATUSES.get(reported);
  if (status === undefined) {
    return {
      ok: false,
      issues: [{ field: 'MessageStatus', reason: `unknown status '${reported.slice(0, 32)}'` }],
    };
  }
  const messageId = ourMessageId(query.umsMessageId);
  const code = form.get('ErrorCode');
  const errorText = form.get('ErrorMessage');
  const failed = status === MessageStatus.Failed;
  const event: ProviderEventV1 = {
    eventId: callbackEventId('tw', sid, reported),
    kind: ProviderEventKind.Status,
    provider: context.provider,
    credentialId: context.credentialId,
    status: {
      ...(messageId === undefined ? {} : { messageId }),
      providerMessageId: sid,
      status,
      ...(failed ? { reason: callbackFailureReason(context.provider, code) } : {}),
      ...(failed && code !== undefined && code !== '' ? { errorCode: cut(code, MAX_ERROR_CODE_LENGTH) } : {}),
      ...(failed && errorText !== undefined && errorText !== ''
        ? { errorText: cut(errorText, MAX_ERROR_TEXT_LENGTH) }
        : {}),
      occurredAt: context.receivedAt,
    },
    receivedAt: context.receivedAt,
  };
  return { ok: true, events: [event], ignored: 0 };
}
