import {
  MessageStatus,
  ProviderEventKind,
  type ProviderEventV1,
  type ProviderInboundV1,
  type ProviderReportedStatus,
  type ProviderStatusV1,
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
import { isOptOutText } from './opt-out-keyword';

const STATUSES: ReadonlyMap<string, ProviderReportedStatus> = new Map([
  ['sent', MessageStatus.Sent],
  ['delivered', MessageStatus.Delivered],
  ['read', MessageStatus.Read],
  ['failed', MessageStatus.Failed],
]);

// Media message types whose object carries `id` and `mime_type` (and maybe a caption).
const MEDIA_TYPES = new Set(['image', 'audio', 'video', 'document', 'sticker']);

/**
 * Reads a WhatsApp Cloud API `messages` webhook (already parsed JSON): every status of every change
 * becomes a status event, every message an inbound event. Statuses Meta sends that say nothing
 * about delivery (`deleted`, `warning`) and changes of other fields are ignored and counted.
 */
export function parseWhatsAppCallback(body: unknown, context: CallbackContext): CallbackParse {
  const read = new FieldReader();
  const events: ProviderEventV1[] = [];
  let ignored = 0;
  const root = read.record(body, '(body)');
  if (root === undefined) return { ok: false, issues: read.issues };
  if (root['object'] !== 'whatsapp_business_account') {
    return { ok: false, issues: [{ field: 'object', reason: 'must be whatsapp_business_account' }] };
  }
  const entries = read.array(root['entry'], 'entry') ?? [];
  entries.forEach((entryValue, e) => {
    const entry = read.record(entryValue, `entry[${e}]`);
    const changes = entry === undefined ? [] : (read.array(entry['changes'], `entry[${e}].changes`) ?? []);
    changes.forEach((changeValue, c) => {
      const at = `entry[${e}].changes[${c}]`;
      const change = read.record(changeValue, at);
      if (change === undefined) return;
      if (change['field'] !== 'messages') {
        ignored += 1;
        return;
      }
      const value = read.record(change['value'], `${at}.value`);
      if (value === undefined) return;
      const metadata = isRecord(value['metadata']) ? value['metadata'] : {};
      const to =
        read.optionalText(
          metadata['display_phone_number'],
          `${at}.value.metadata.display_phone_number`,
          320,
        ) ?? read.text(metadata['phone_number_id'], `${at}.value.metadata.phone_number_id`, 320);
      const statuses =
        value['statuses'] === undefined ? [] : read.array(value['statuses'], `${at}.value.statuses`);
      (statuses ?? []).forEach((item, s) => {
        const status = readStatus(read, item, `${at}.value.statuses[${s}]`, context);
        if (status === 'ignored') ignored += 1;
        else if (status !== undefined) {
          events.push({
            eventId: callbackEventId('wa', status.providerMessageId, status.status),
            kind: ProviderEventKind.Status,
            provider: context.provider,
            credentialId: context.credentialId,
            status,
            receivedAt: context.receivedAt,
          });
        }
      });
      const messages =
        value['messages'] === undefined ? [] : read.array(value['messages'], `${at}.value.messages`);
      (messages ?? []).forEach((item, m) => {
        const inbound = readInbound(read, item, `${at}.value.messages[${m}]`, to);
        if (inbound !== undefined) {
          events.push({
            eventId: callbackEventId('wa-in', inbound.providerMessageId),
            kind: ProviderEventKind.Inbound,
            provider: context.provider,
            credentialId: context.credentialId,
            inbound,
            receivedAt: context.receivedAt,
          });
        }
      });
    });
  });
  if (read.issues.length > 0) return { ok: false, issues: read.issues };
  return { ok: true, events, ignored };
}

function readStatus(
  read: FieldReader,
  value: unknown,
  at: string,
  context: CallbackContext,
): ProviderStatusV1 | 'ignored' | undefined {
  const item = read.record(value, at);
  if (item === undefined) return undefined;
  const providerMessageId = read.text(item['id'], `${at}.id`, 256);
  const reported = read.text(item['status'], `${at}.status`, 32);
  const occurredAt = read.unixSeconds(item['timestamp'], `${at}.timestamp`);
  if (providerMessageId === undefined || reported === undefined || occurredAt === undefined) return undefined;
  const status = STATUSES.get(reported);
  if (status === undefined) return 'ignored';
  const messageId = ourMessageId(item['biz_opaque_callback_data']);
  const base = { ...(messageId === undefined ? {} : { messageId }), providerMessageId, status, occurredAt };
  if (status !== MessageStatus.Failed) return base;
  const errors = Array.isArray(item['errors']) ? item['errors'] : [];
  const first: unknown = errors[0];
  const error = isRecord(first) ? first : {};
  const code =
    typeof error['code'] === 'number' || typeof error['code'] === 'string'
      ? String(error['code'])
      : undefined;
  const details = isRecord(error['error_data']) ? error['error_data']['details'] : undefined;
  const text = [error['title'], details].filter((t): t is string => typeof t === 'string' && t !== '');
  return {
    ...base,
    reason: callbackFailureReason(context.provider, code),
    ...(code === undefined ? {} : { errorCode: cut(code, MAX_ERROR_CODE_LENGTH) }),
    ...(text.length === 0 ? {} : { errorText: cut(text.join(': '), MAX_ERROR_TEXT_LENGTH) }),
  };
}

function readInbound(
  read: FieldReader,
  value: unknown,
  at: string,
  to: string | undefined,
): ProviderInboundV1 | undefined {
  const item = read.record(value, at);
  if (item === undefined) return undefined;
  const from = read.text(item['from'], `${at}.from`, 320);
  const providerMessageId = read.text(item['id'], `${at}.id`, 256);
  const occurredAt = read.unixSeconds(item['timestamp'], `${at}.timestamp`);
  const type = read.text(item['type'], `${at}.type`, 64);
  if (
    from === undefined ||
    providerMessageId === undefined ||
    occurredAt === undefined ||
    type === undefined
  ) {
    return undefined;
  }
  if (to === undefined) return undefined;
  const content = isRecord(item[type]) ? item[type] : {};
  let text: string | undefined;
  let mediaRef: string | undefined;
  let mediaType: string | undefined;
  if (type === 'text') text = read.text(content['body'], `${at}.text.body`, 65_536);
  else if (type === 'button') text = stringOf(content['text']) ?? stringOf(content['payload']);
  else if (type === 'interactive') {
    const reply = isRecord(content['button_reply']) ? content['button_reply'] : content['list_reply'];
    text = isRecord(reply) ? stringOf(reply['title']) : undefined;
  } else if (MEDIA_TYPES.has(type)) {
    mediaRef = read.text(content['id'], `${at}.${type}.id`, 2048);
    mediaType = stringOf(content['mime_type'])?.slice(0, 128);
    text = stringOf(content['caption']);
  }
  return {
    from,
    to,
    ...(text === undefined ? {} : { text: text.slice(0, 65_536) }),
    ...(mediaRef === undefined ? {} : { mediaRef }),
    ...(mediaType === undefined ? {} : { mediaType }),
    providerMessageId,
    optOut: isOptOutText(text),
    occurredAt,
  };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
