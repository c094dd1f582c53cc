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

// SES event publishing `eventType` (notifications use `notificationType` with the same names).
const STATUSES: ReadonlyMap<string, { status: ProviderReportedStatus; detail: string }> = new Map([
  ['Send', { status: MessageStatus.Sent, detail: 'send' }],
  ['Delivery', { status: MessageStatus.Delivered, detail: 'delivery' }],
  ['Open', { status: MessageStatus.Read, detail: 'open' }],
  ['Bounce', { status: MessageStatus.Failed, detail: 'bounce' }],
  ['Reject', { status: MessageStatus.Failed, detail: 'reject' }],
  ['Rendering Failure', { status: MessageStatus.Failed, detail: 'failure' }],
]);
// Events that say nothing about delivery progress.
const IGNORED = new Set(['Click', 'DeliveryDelay', 'Subscription', 'AmazonSnsSubscriptionSucceeded']);

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
  const event = read.record(body, 'Message');
  if (event === undefined) return { ok: false, issues: read.issues };
  const type = read.text(event['eventType'] ?? event['notificationType'], 'Message.eventType', 64);
  const mail = read.record(event['mail'], 'Message.mail');
  if (type === undefined || mail === undefined) return { ok: false, issues: read.issues };
  const providerMessageId = read.text(mail['messageId'], 'Message.mail.messageId', 256);
  if (providerMessageId === undefined) return { ok: false, issues: read.issues };
  const tags = isRecord(mail['tags']) ? mail['tags'] : {};
  const tagged = Array.isArray(tags['ums_message_id']) ? (tags['ums_message_id'] as unknown[])[0] : undefined;
  const messageId = ourMessageId(tagged);
  const detail = (name: string): Record<string, unknown> => {
    const value = event[name];
    return isRecord(value) ? value : {};
  };
  const timeOf = (value: unknown): string | undefined =>
    typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined;

  if (type === 'Complaint') {
    const complaint = detail('complaint');
    const recipients = Array.isArray(complaint['complainedRecipients'])
      ? complaint['complainedRecipients']
      : [];
    const source = read.text(mail['source'], 'Message.mail.source', 320);
    if (source === undefined) return { ok: false, issues: read.issues };
    const events: ProviderEventV1[] = [];
    recipients.forEach((recipient: unknown, i) => {
      const from = read.text(
        isRecord(recipient) ? recipient['emailAddress'] : undefined,
        `Message.complaint.complainedRecipients[${i}].emailAddress`,
        320,
      );
      if (from === undefined) return;
      events.push({
        eventId: callbackEventId('ses-complaint', providerMessageId, from),
        kind: ProviderEventKind.Inbound,
        provider: context.provider,
        credentialId: context.credentialId,
        inbound: {
          from,
          to: source,
          providerMessageId,
          optOut: true,
          occurredAt: timeOf(complaint['timestamp']) ?? context.receivedAt,
        },
        receivedAt: context.receivedAt,
      });
    });
    if (read.issues.length > 0) return { ok: false, issues: read.issues };
    return { ok: true, events, ignored: 0 };
  }
  if (IGNORED.has(type)) return { ok: true, events: [], ignored: 1 };
  const mapped = STATUSES.get(type);
  if (mapped === undefined) {
    return {
      ok: false,
      issues: [{ field: 'Message.eventType', reason: `unknown SES event '${type.slice(0, 64)}'` }],
    };
  }
  const facts = detail(mapped.detail);
  let failure: { reason: FailureReason; errorCode?: string; errorText?: string } | undefined;
  if (type === 'Bounce') {
    const code = [facts['bounceType'], facts['bounceSubType']].filter((p) => typeof p === 'string').join('/');
    const recipients = Array.isArray(facts['bouncedRecipients']) ? facts['bouncedRecipients'] : [];
    const first: unknown = recipients[0];
    const diagnostic =
      isRecord(first) && typeof first['diagnosticCode'] === 'string' ? first['diagnosticCode'] : undefined;
    failure = {
      reason: callbackFailureReason(context.provider, code),
      ...(code === '' ? {} : { errorCode: cut(code, MAX_ERROR_CODE_LENGTH) }),
      ...(diagnostic === undefined ? {} : { errorText: cut(diagnostic, MAX_ERROR_TEXT_LENGTH) }),
    };
  } else if (mapped.status === MessageStatus.Failed) {
    const reason = typeof facts['reason'] === 'string' ? facts['reason'] : facts['errorMessage'];
    failure = {
      reason: FailureReason.Rejected,
      errorCode: type === 'Reject' ? 'Reject' : 'RenderingFailure',
      ...(typeof reason === 'string' ? { errorText: cut(reason, MAX_ERROR_TEXT_LENGTH) } : {}),
    };
  }
  const occurredAt = timeOf(facts['timestamp']) ?? timeOf(mail['timestamp']) ?? context.receivedAt;
  return {
    ok: true,
    ignored: 0,
    events: [
      {
        eventId: callbackEventId('ses', providerMessageId, mapped.status),
        kind: ProviderEventKind.Status,
        provider: context.provider,
        credentialId: context.credentialId,
        status: {
          ...(messageId === undefined ? {} : { messageId }),
          providerMessageId,
          status: mapped.status,
          ...(failure ?? {}),
          occurredAt,
        },
        receivedAt: context.receivedAt,
      },
    ],
  };
}
