import { createHash } from 'node:crypto';
import { DeliveryErrorCode } from '@ums/contracts';

/** The most events a subscriber may take in one request (`maxEventsPerRequest`). */
export const WEBHOOK_MAX_EVENTS_PER_REQUEST = 500;
/** A batch stops growing at this body size (one event alone may exceed it). */
export const WEBHOOK_BATCH_MAX_BYTES = 512 * 1024;
/** The `type` of a batch body; its `data` holds the events. */
export const WEBHOOK_BATCH_TYPE = 'webhook.batch';
/** `webhook-id` prefix of batch requests (single events keep the event id). */
export const WEBHOOK_BATCH_ID_PREFIX = 'batch_';

export interface WebhookBatchItem {
  /** The event's id: what a batch subscriber dedupes on (the request's `webhook-id` is the batch's). */
  readonly eventId: string;
  /** The single-event body `{type, timestamp, data}`, a JSON object. */
  readonly payload: string;
}

export class WebhookBatchPayloadError extends Error {
  readonly code = DeliveryErrorCode.PayloadNotObject;
}

/** Whether a stored body can go into a batch: a JSON object, judged by its first and last characters. */
export function isJsonObjectText(payload: string): boolean {
  return payload.charCodeAt(0) === 0x7b && payload.charCodeAt(payload.length - 1) === 0x7d;
}

/**
 * The body of a batch: `{type: 'webhook.batch', timestamp, data: [{id, type, timestamp, data}, ...]}`,
 * each item the event's own body with its id first. Built by splicing the stored bodies (no parse
 * and re-serialise per event): they are JSON objects, checked by their first and last characters.
 */
export function webhookBatchBody(items: readonly WebhookBatchItem[], timestamp: string): string {
  const parts: string[] = [];
  for (const { eventId, payload } of items) {
    if (!isJsonObjectText(payload)) {
      throw new WebhookBatchPayloadError(`The body of event ${eventId} is not a JSON object`);
    }
    const rest = payload.slice(1).trimStart();
    parts.push(`{"id":${JSON.stringify(eventId)}${rest === '}' ? '}' : `,${rest}`}`);
  }
  return `{"type":"${WEBHOOK_BATCH_TYPE}","timestamp":${JSON.stringify(timestamp)},"data":[${parts.join(',')}]}`;
}

/** Bytes one item adds to a batch body: the stored body, its id and the separators. */
export function webhookBatchItemBytes(item: WebhookBatchItem): number {
  return Buffer.byteLength(item.payload) + Buffer.byteLength(item.eventId) + 10;
}

/**
 * How many of the leading items go into one request: up to `max`, and no more than
 * WEBHOOK_BATCH_MAX_BYTES of body (but always the first, whatever its size).
 */
export function webhookBatchLength<T>(
  items: readonly T[],
  max: number,
  itemOf: (entry: T) => WebhookBatchItem,
): number {
  let count = 0;
  let bytes = 0;
  for (const entry of items) {
    if (count === max) break;
    bytes += webhookBatchItemBytes(itemOf(entry));
    if (count > 0 && bytes > WEBHOOK_BATCH_MAX_BYTES) break;
    count++;
  }
  return count;
}

/** Crockford's base32 alphabet (as in ULIDs): digits and capitals without I, L, O and U. */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Characters of a batch id after its prefix: 130 bits of the digest, the length of a ULID. */
const BATCH_ID_LENGTH = 26;

/**
 * The `webhook-id` of a batch request: `batch_` and 26 base32 characters of the SHA-256 of the
 * subscriber's id and its events' ids (in sorted order). The same events to the same subscriber, in
 * whatever order, give the same id, so a retried or replayed batch keeps its id and a receiver can
 * deduplicate the request; any other set of events gives another id.
 */
export function webhookBatchId(subscriberId: string, eventIds: readonly string[]): string {
  const hash = createHash('sha256').update(subscriberId);
  for (const eventId of [...eventIds].sort()) hash.update('\n').update(eventId);
  const digest = hash.digest();
  let out = '';
  for (let i = 0; i < BATCH_ID_LENGTH; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const pair = ((digest[byte] ?? 0) << 8) | (digest[byte + 1] ?? 0);
    out += BASE32[(pair >> (11 - (bit & 7))) & 31];
  }
  return `${WEBHOOK_BATCH_ID_PREFIX}${out}`;
}

/**
 * The `webhook-id` and body of one request: a single event's own id and body, or, for a batch
 * subscriber, a `webhook.batch` body (one event or many) under its webhookBatchId.
 */
export function webhookRequest(
  items: readonly WebhookBatchItem[],
  batch: { readonly subscriberId: string; readonly timestamp: string } | undefined,
): { readonly webhookId: string; readonly body: string } {
  const first = items[0];
  if (batch === undefined && items.length === 1 && first !== undefined) {
    return { webhookId: first.eventId, body: first.payload };
  }
  if (batch === undefined) throw new RangeError('A request without a batch holds exactly one event');
  return {
    webhookId: webhookBatchId(
      batch.subscriberId,
      items.map((item) => item.eventId),
    ),
    body: webhookBatchBody(items, batch.timestamp),
  };
}
