import { randomBytes } from 'node:crypto';
import { DeadLetterV1, decodeMessage } from '@ums/contracts';
import type { IHeaders, Kafka } from 'kafkajs';
import { waitUntil } from '../process/wait-until';

/** A record an outside producer could write to any topic, that no consumer may be stopped by. */
export interface HostileRecord {
  readonly label: string;
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: IHeaders;
}

export interface HostileRecordOptions {
  /**
   * Bytes of the oversized record's value: close to the broker's message.max.bytes (1 MiB by
   * default), so that its dead-letter copy (JSON-escaped, in an envelope) cannot fit.
   */
  readonly oversizedBytes?: number;
}

/** Under the default message.max.bytes (1,048,588) with room for the record batch's overhead. */
const DEFAULT_OVERSIZED_BYTES = 1_000_000;

/**
 * Records that fail every contract schema and try each way a consumer could choke on them: a
 * value near the broker's size limit whose dead-letter copy cannot fit, bytes that are not UTF-8,
 * text that is not JSON, JSON that is not an object, no value at all, a huge key, huge and
 * malformed headers, and our own headers forged (attempt, far-future due time). A consumer must
 * dead-letter each (whole, or reduced to what fits) and go on to the record behind them.
 * Values are never valid messages, so the expectation is the same on every topic.
 */
export function hostileRecords(options: HostileRecordOptions = {}): HostileRecord[] {
  const oversized = options.oversizedBytes ?? DEFAULT_OVERSIZED_BYTES;
  return [
    // Every quote doubles when the dead letter JSON-escapes it.
    { label: 'oversized', key: 'hostile', value: Buffer.alloc(oversized, '"') },
    {
      label: 'not-utf8',
      key: 'hostile',
      value: Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3]), randomBytes(64)]),
    },
    { label: 'not-json', key: 'hostile', value: 'this is not JSON {' },
    { label: 'json-not-object', key: 'hostile', value: '[1,2,3]' },
    { label: 'no-value', key: 'hostile', value: null },
    { label: 'huge-key', key: Buffer.alloc(200_000, 'k'), value: '{' },
    { label: 'huge-headers', key: 'hostile', value: '{}', headers: hugeHeaders() },
    {
      label: 'forged-headers',
      key: null,
      value: '{}',
      headers: {
        'ums-attempt': 'NaN',
        'ums-due-at': '99999999999999',
        'ums-origin-topic': Buffer.from([0xff, 0x00, 0xfe]),
        '': 'empty name',
      },
    },
  ];
}

/** About 900 KB of headers: many, long, JSON-hostile, not UTF-8, and one with a very long name. */
function hugeHeaders(): IHeaders {
  const headers: IHeaders = {};
  for (let i = 0; i < 180; i++) headers[`x-hostile-${i}`] = '"'.repeat(5_000);
  headers['x-not-utf8'] = Buffer.from([0xff, 0xfe, 0xfd, 0xc3]);
  headers['x-'.padEnd(2_000, 'n')] = 'long name';
  headers['x-repeated'] = [Buffer.from('one'), Buffer.from('two')];
  return headers;
}

/**
 * Reads a dead-letter topic from its start, keeping the letters `keep` selects (letters that do not
 * decode are skipped), until `done` says the letters kept are enough or, without `done`, up to the
 * end the topic had when the call began. Fails after `timeoutMs`.
 */
export async function collectDeadLetters(
  kafka: Kafka,
  options: {
    readonly topic: string;
    readonly keep: (letter: DeadLetterV1) => boolean;
    readonly done?: (letters: readonly DeadLetterV1[]) => boolean;
    readonly timeoutMs?: number;
  },
): Promise<DeadLetterV1[]> {
  const ends = await endOffsets(kafka, options.topic);
  const next = new Map<number, bigint>();
  const letters: DeadLetterV1[] = [];
  const atEnd = (): boolean => [...ends].every(([partition, end]) => (next.get(partition) ?? 0n) >= end);
  const consumer = kafka.consumer({ groupId: `dlq-reader-${randomBytes(4).toString('hex')}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        next.set(partition, BigInt(message.offset) + 1n);
        const decoded = decodeMessage(DeadLetterV1, message.value);
        if (decoded.ok && options.keep(decoded.value)) letters.push(decoded.value);
      },
    });
    const done = options.done ?? (() => atEnd());
    await waitUntil(`dead letters on ${options.topic}`, () => done(letters), {
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return [...letters];
  } finally {
    await consumer.disconnect();
  }
}

async function endOffsets(kafka: Kafka, topic: string): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
  } finally {
    await admin.disconnect();
  }
}
