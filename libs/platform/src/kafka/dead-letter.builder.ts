import {
  type DeadLetterCauseCode,
  type DeadLetterV1,
  describeFailure,
  MessageHandlingErrorCode,
} from '@ums/contracts';

export interface FailedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** Why a record is dead-lettered. */
export interface DeadLetterCause {
  readonly consumerGroup: string;
  readonly errorCode: DeadLetterCauseCode;
  readonly reason: string;
  readonly attempts: number;
}

/** Bytes of the original value a reduced dead letter keeps. */
export const REDUCED_VALUE_BYTES = 64 * 1024;

/** DeadLetterV1's bounds, so that every letter built here passes the dead-letter topic's own schema. */
const MAX_KEY_CHARS = 1024;
const MAX_HEADERS = 64;
const MAX_HEADER_NAME_CHARS = 64;
const MAX_HEADER_VALUE_CHARS = 4096;
const MAX_REASON_CHARS = 8192;
const MAX_CODE_CHARS = 64;
/** A reduced letter keeps a few short headers (ours are short): the rest is what may have been refused. */
const REDUCED_HEADERS = 16;
const REDUCED_HEADER_VALUE_CHARS = 256;
const REDUCED_KEY_CHARS = 256;

/** Wraps a record that cannot be processed, keeping its bytes (utf8 when they are text). */
export function buildDeadLetter(record: FailedRecord, cause: DeadLetterCause, now: Date): DeadLetterV1 {
  const { consumerGroup, errorCode, reason, attempts } = cause;
  const headers = boundHeaders(record.headers, MAX_HEADERS, MAX_HEADER_VALUE_CHARS);
  const value = encodeValue(record.value);
  return {
    ...coordinates(record, consumerGroup),
    key: record.key === null ? undefined : record.key.toString('utf8').slice(0, MAX_KEY_CHARS),
    value: value.text,
    valueEncoding: value.encoding,
    headers: headers.kept,
    errorCode: errorCode.slice(0, MAX_CODE_CHARS),
    reason: (headers.cut ? `${reason} (headers shortened)` : reason).slice(0, MAX_REASON_CHARS),
    attempts,
    failedAt: now.toISOString(),
  };
}

/**
 * The dead letter to publish when the broker refused the full one (too large, malformed header):
 * the record's coordinates, a shortened key, the first REDUCED_VALUE_BYTES of its value, a few
 * shortened headers, and the original reason with the refusal. Small whatever the record was.
 */
export function buildReducedDeadLetter(
  record: FailedRecord,
  cause: DeadLetterCause,
  refusal: string,
  now: Date,
): DeadLetterV1 {
  const size = record.value?.length ?? 0;
  const value = encodeValue(record.value === null ? null : utf8Prefix(record.value, REDUCED_VALUE_BYTES));
  const headers = boundHeaders(record.headers, REDUCED_HEADERS, REDUCED_HEADER_VALUE_CHARS);
  const kept = Math.min(size, REDUCED_VALUE_BYTES);
  const note =
    `full dead letter refused (${refusal.slice(0, 512)}); value ${kept} of ${size} bytes` +
    (headers.cut ? `, headers shortened from ${Object.keys(record.headers).length}` : '');
  return {
    ...coordinates(record, cause.consumerGroup),
    key: record.key === null ? undefined : record.key.toString('utf8').slice(0, REDUCED_KEY_CHARS),
    value: value.text,
    valueEncoding: value.encoding,
    headers: headers.kept,
    errorCode: MessageHandlingErrorCode.DeadLetterTruncated,
    // The letter's own code says it is reduced: the original code goes with the original reason.
    reason: describeFailure(cause.errorCode, `${cause.reason.slice(0, 4096)} [${note}]`).slice(
      0,
      MAX_REASON_CHARS,
    ),
    attempts: cause.attempts,
    failedAt: now.toISOString(),
  };
}

function coordinates(
  record: FailedRecord,
  consumerGroup: string,
): Pick<DeadLetterV1, 'sourceTopic' | 'sourcePartition' | 'sourceOffset' | 'consumerGroup'> {
  return {
    sourceTopic: record.topic,
    sourcePartition: record.partition,
    sourceOffset: record.offset,
    consumerGroup: consumerGroup.slice(0, 200),
  };
}

/** utf8 text when the bytes are valid UTF-8, else base64. */
function encodeValue(value: Buffer | null): { text?: string; encoding: 'utf8' | 'base64' } {
  if (value === null) return { text: undefined, encoding: 'utf8' };
  const asText = value.toString('utf8');
  if (Buffer.from(asText, 'utf8').equals(value)) return { text: asText, encoding: 'utf8' };
  return { text: value.toString('base64'), encoding: 'base64' };
}

/**
 * The first `maxBytes` of a value; when that cuts a UTF-8 character of text in two, the cut moves
 * back to the character's start so that the prefix of a text stays text.
 */
export function utf8Prefix(value: Buffer, maxBytes: number): Buffer {
  if (value.length <= maxBytes) return value;
  let end = maxBytes;
  // Continuation bytes are 10xxxxxx: step back over at most three to the character's first byte.
  for (let back = 0; back < 3 && end > 0 && ((value[end] as number) & 0xc0) === 0x80; back++) end--;
  return value.subarray(0, end);
}

function boundHeaders(
  headers: Readonly<Record<string, string>>,
  maxHeaders: number,
  maxValueChars: number,
): { kept: Record<string, string>; cut: boolean } {
  const kept: Record<string, string> = {};
  let cut = false;
  let count = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (count >= maxHeaders || name.length === 0 || name.length > MAX_HEADER_NAME_CHARS) {
      cut = true;
      continue;
    }
    if (value.length > maxValueChars) cut = true;
    kept[name] = value.slice(0, maxValueChars);
    count++;
  }
  return { kept, cut };
}

/** One header as a string; kafkajs headers may be Buffers, strings or arrays of them. */
export function headerValue(
  headers: Readonly<Record<string, unknown>> | undefined,
  name: string,
): string | undefined {
  const raw = headers?.[name];
  const first: unknown = Array.isArray(raw) ? raw[0] : raw;
  if (Buffer.isBuffer(first)) return first.toString('utf8');
  return typeof first === 'string' ? first : undefined;
}

/**
 * All headers as strings (ours are single values). Never throws, whatever a producer wrote: bytes
 * that are not UTF-8 read as replacement characters, and a header that cannot be read is left out.
 */
export function decodeHeaders(
  headers: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || headers === null || typeof headers !== 'object') return out;
  for (const name of Object.keys(headers)) {
    try {
      const value = headerValue(headers, name);
      if (value !== undefined) out[name] = value;
    } catch {
      // An unreadable header is dropped: the record is still processed or dead-lettered by its value.
      continue;
    }
  }
  return out;
}
