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
  ourMessageId,
} from './callback-parse';

const STATUSES: ReadonlyMap<string, ProviderReportedStatus> = new Map([
  ['sent', MessageStatus.Sent],
  ['delivered', MessageStatus.Delivered],
  ['read', MessageStatus.Read],
  ['failed', MessageStatus.Failed],
]);

/** Reads the simulator's native callback: `{events: [{messageId, providerMessageId, status, code?, timestamp}]}`. */
export function parseSimulatorCallback(body: unknown, context: CallbackContext): CallbackParse {
  const read = new FieldReader();
  const root = read.record(body, '(body)');
  const items = root === undefined ? undefined : read.array(root['events'], 'events');
  if (items === undefined) return { ok: false, issues: read.issues };
  const events: ProviderEventV1[] = [];
  items.forEach((value, i) => {
    const item = read.record(value, `events[${i}]`);
    if (item === undefined) return;
    const providerMessageId = read.text(item['providerMessageId'], `events[${i}].providerMessageId`, 256);
    const reported = read.text(item['status'], `events[${i}].status`, 32);
    const occurredAt = read.isoTime(item['timestamp'], `events[${i}].timestamp`);
    const code = read.optionalText(item['code'], `events[${i}].code`, 1024);
    if (providerMessageId === undefined || reported === undefined || occurredAt === undefined) return;
    const status = STATUSES.get(reported);
    if (status === undefined) {
      read.refuse(`events[${i}].status`, `unknown status '${reported}'`);
      return;
    }
    const messageId = ourMessageId(item['messageId']);
    const failed = status === MessageStatus.Failed;
    events.push({
      eventId: callbackEventId('sim', providerMessageId, reported),
      kind: ProviderEventKind.Status,
      provider: context.provider,
      credentialId: context.credentialId,
      status: {
        ...(messageId === undefined ? {} : { messageId }),
        providerMessageId,
        status,
        ...(failed ? { reason: callbackFailureReason(context.provider, code) } : {}),
        ...(failed && code !== undefined ? { errorCode: cut(code, MAX_ERROR_CODE_LENGTH) } : {}),
        occurredAt,
      },
      receivedAt: context.receivedAt,
    });
  });
  if (read.issues.length > 0) return { ok: false, issues: read.issues };
  return { ok: true, events, ignored: 0 };
}
