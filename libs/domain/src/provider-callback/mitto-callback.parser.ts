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
  ['failed', MessageStatus.Failed],
  ['undelivered', MessageStatus.Failed],
]);

/**
 * Reads the parameters of one Mitto delivery report (query string of a GET, or query and form of a
 * POST, docs/provider-shapes.md): `id`, `reference` (our message id), `status`
 * (delivered|undelivered|failed, or sent), `code` (on failure) and `timestamp` (ISO 8601).
 */
export function parseMittoCallback(params: unknown, context: CallbackContext): CallbackParse {
  const read = new FieldReader();
  const report = read.record(params, '(query)');
  if (report === undefined) return { ok: false, issues: read.issues };
  const providerMessageId = read.text(report['id'], 'id', 256);
  const reported = read.text(report['status'], 'status', 32);
  const occurredAt = read.isoTime(report['timestamp'], 'timestamp');
  const code = read.optionalText(report['code'], 'code', 1024);
  if (providerMessageId === undefined || reported === undefined || occurredAt === undefined) {
    return { ok: false, issues: read.issues };
  }
  const status = STATUSES.get(reported);
  if (status === undefined) {
    return { ok: false, issues: [{ field: 'status', reason: `unknown status '${reported}'` }] };
  }
  const messageId = ourMessageId(report['reference']);
  const failed = status === MessageStatus.Failed;
  const event: ProviderEventV1 = {
    eventId: callbackEventId('mitto', providerMessageId, reported),
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
  };
  return { ok: true, events: [event], ignored: 0 };
}
