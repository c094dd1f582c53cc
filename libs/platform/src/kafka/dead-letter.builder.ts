import type { DeadLetterV1 } from '@ums/contracts';

export interface FailedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** Wraps a record that cannot be processed, keeping its bytes (utf8 when they are text). */
export function buildDeadLetter(
  record: FailedRecord,
  consumerGroup: string,
  errorCode: string,
  reason: string,
  attempts: number,
  now: Date,
): DeadLetterV1 {
  const value = record.value;
  const asText = value === null ? undefined : value.toString('utf8');
  const isText = value !== null && asText !== undefined && Buffer.from(asText, 'utf8').equals(value);
  return {
    sourceTopic: record.topic,
    sourcePartition: record.partition,
    sourceOffset: record.offset,
    consumerGroup,
    key: record.key === null ? undefined : record.key.toString('utf8').slice(0, 1024),
    value: value === null ? undefined : isText ? asText : value.toString('base64'),
    valueEncoding: isText || value === null ? 'utf8' : 'base64',
    headers: { ...record.headers },
    errorCode: errorCode.slice(0, 64),
    reason: reason.slice(0, 8192),
    attempts,
    failedAt: now.toISOString(),
  };
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

/** All headers as strings (ours are single values). */
export function decodeHeaders(
  headers: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers ?? {})) {
    const value = headerValue(headers, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
