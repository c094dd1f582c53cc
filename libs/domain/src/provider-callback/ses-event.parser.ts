import {
  FailureReason,
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
  isRecord,
  MAX_ERROR_CODE_LENGTH,
  MAX_ERROR_TEXT_LENGTH,
  ourMessageId,
} from './callback-parse';

interface SesStatus {
  readonly status: ProviderReportedStatus;
  /** The event's field that holds its details (`bounce`, `delivery`, ...). */
  readonly detail: string;
}

// SES event publishing `eventType` (notifications use `notificationType` with the same names).
const STATUSES: ReadonlyMap<string, SesStatus> = new Map([
  ['Send', { status: MessageStatus.Sent, detail: 'send' }],
  ['Delivery', { status: MessageStatus.Delivered, detail: 'delivery' }],
  ['Open', { status: MessageStatus.Read, detail: 'open' }],
  ['Bounce', { status: MessageStatus.Failed, detail: 'bounce' }],
  ['Reject', { status: MessageStatus.Failed, detail: 'reject' }],
  ['Rendering Failure', { status: MessageStatus.Failed, detail: 'failure' }],
]);
// Events that say nothing about delivery progress.
const IGNORED = new Set(['Click', 'DeliveryDelay', 'Subscription', 'AmazonSnsSubscriptionSucceeded']);

/** The fields every SES event carries, read. */
interface SesEvent {
  readonly type: string;
  readonly event: Record<string, unknown>;
  readonly mail: Record<string, unknown>;
  readonly providerMessageId: string;
}

interface SesFailure {
  readonly reason: FailureReason;
  readonly errorCode?: string;
  readonly errorText?: string;
}

/**
 * Reads an SES event (the `Message` of an SNS notification, itself JSON): Send, Delivery, Open
 * (read), Bounce, Reject and rendering failures become status events naming our message id from the
 * `ums_message_id` tag; a Complaint becomes an opt-out of the complaining address (an inbound event
 * without text), since the recipient asked not to be mailed again.
 */
export function parseSesEvent(message: string, context: CallbackContext): CallbackParse {
  const read = new FieldReader();
  let body: unknown;
  try {
    body = JSON.parse(message) as unknown;
  } catch {
    return { ok: false, issues: [{ field: 'Message', reason: 'must be an SES event in JSON' }] };
  }
  const ses = readSesEvent(body, read);
  if (ses === undefined) return { ok: false, issues: read.issues };
  if (ses.type === 'Complaint') return complaintOptOuts(ses, context, read);
  if (IGNORED.has(ses.type)) return { ok: true, events: [], ignored: 1 };
  const mapped = STATUSES.get(ses.type);
  if (mapped === undefined) {
    return {
      ok: false,
      issues: [{ field: 'Message.eventType', reason: `unknown SES event '${ses.type.slice(0, 64)}'` }],
    };
  }
  return { ok: true, ignored: 0, events: [statusEvent(ses, mapped, context)] };
}

/** The event's type, mail and SES message id; undefined (the reader names why) when one is missing. */
function readSesEvent(body: unknown, read: FieldReader): SesEvent | undefined {
  const event = read.record(body, 'Message');
  if (event === undefined) return undefined;
  const type = read.text(event['eventType'] ?? event['notificationType'], 'Message.eventType', 64);
  const mail = read.record(event['mail'], 'Message.mail');
  if (type === undefined || mail === undefined) return undefined;
  const providerMessageId = read.text(mail['messageId'], 'Message.mail.messageId', 256);
  if (providerMessageId === undefined) return undefined;
  return { type, event, mail, providerMessageId };
}

/** A complaint: an opt-out (inbound, no text) from each complaining address to the sender. */
function complaintOptOuts(ses: SesEvent, context: CallbackContext, read: FieldReader): CallbackParse {
  const complaint = detailOf(ses.event, 'complaint');
  const recipients = Array.isArray(complaint['complainedRecipients'])
    ? complaint['complainedRecipients']
    : [];
  const source = read.text(ses.mail['source'], 'Message.mail.source', 320);
  if (source === undefined) return { ok: false, issues: read.issues };
  const occurredAt = timeOf(complaint['timestamp']) ?? context.receivedAt;
  const events: ProviderEventV1[] = [];
  recipients.forEach((recipient: unknown, i) => {
    const from = read.text(
      isRecord(recipient) ? recipient['emailAddress'] : undefined,
      `Message.complaint.complainedRecipients[${i}].emailAddress`,
      320,
    );
    if (from === undefined) return;
    events.push({
      eventId: callbackEventId('ses-complaint', ses.providerMessageId, from),
      kind: ProviderEventKind.Inbound,
      provider: context.provider,
      credentialId: context.credentialId,
      inbound: { from, to: source, providerMessageId: ses.providerMessageId, optOut: true, occurredAt },
      receivedAt: context.receivedAt,
    });
  });
  if (read.issues.length > 0) return { ok: false, issues: read.issues };
  return { ok: true, events, ignored: 0 };
}

/** The status event of a mapped SES event, naming our message id when the mail is tagged with it. */
function statusEvent(ses: SesEvent, mapped: SesStatus, context: CallbackContext): ProviderEventV1 {
  const facts = detailOf(ses.event, mapped.detail);
  const messageId = taggedMessageId(ses.mail);
  const failure = failureOf(ses.type, mapped.status, facts, context);
  const occurredAt = timeOf(facts['timestamp']) ?? timeOf(ses.mail['timestamp']) ?? context.receivedAt;
  return {
    eventId: callbackEventId('ses', ses.providerMessageId, mapped.status),
    kind: ProviderEventKind.Status,
    provider: context.provider,
    credentialId: context.credentialId,
    status: {
      ...(messageId === undefined ? {} : { messageId }),
      providerMessageId: ses.providerMessageId,
      status: mapped.status,
      ...(failure ?? {}),
      occurredAt,
    },
    receivedAt: context.receivedAt,
  };
}

/** Why a failed event failed: a bounce by its type and subtype, a reject or rendering failure as rejected. */
function failureOf(
  type: string,
  status: ProviderReportedStatus,
  facts: Record<string, unknown>,
  context: CallbackContext,
): SesFailure | undefined {
  if (type === 'Bounce') return bounceFailure(facts, context);
  if (status !== MessageStatus.Failed) return undefined;
  const reason = typeof facts['reason'] === 'string' ? facts['reason'] : facts['errorMessage'];
  return {
    reason: FailureReason.Rejected,
    errorCode: type === 'Reject' ? 'Reject' : 'RenderingFailure',
    ...(typeof reason === 'string' ? { errorText: cut(reason, MAX_ERROR_TEXT_LENGTH) } : {}),
  };
}

/** A bounce: `bounceType/bounceSubType` as its code, the first recipient's diagnostic as its text. */
function bounceFailure(facts: Record<string, unknown>, context: CallbackContext): SesFailure {
  const code = [facts['bounceType'], facts['bounceSubType']].filter((p) => typeof p === 'string').join('/');
  const recipients = Array.isArray(facts['bouncedRecipients']) ? facts['bouncedRecipients'] : [];
  const first: unknown = recipients[0];
  const diagnostic =
    isRecord(first) && typeof first['diagnosticCode'] === 'string' ? first['diagnosticCode'] : undefined;
  return {
    reason: callbackFailureReason(context.provider, code),
    ...(code === '' ? {} : { errorCode: cut(code, MAX_ERROR_CODE_LENGTH) }),
    ...(diagnostic === undefined ? {} : { errorText: cut(diagnostic, MAX_ERROR_TEXT_LENGTH) }),
  };
}

/** Our message id from the mail's `ums_message_id` tag (its first value), if it is one. */
function taggedMessageId(mail: Record<string, unknown>): string | undefined {
  const tags = isRecord(mail['tags']) ? mail['tags'] : {};
  const tagged = Array.isArray(tags['ums_message_id']) ? (tags['ums_message_id'] as unknown[])[0] : undefined;
  return ourMessageId(tagged);
}

/** The event's detail object of that name (`bounce`, `complaint`, ...), or an empty one. */
function detailOf(event: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = event[name];
  return isRecord(value) ? value : {};
}

/** A parseable time as ISO 8601 (UTC, milliseconds); anything else undefined. */
function timeOf(value: unknown): string | undefined {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value))
    ? new Date(value).toISOString()
    : undefined;
}
