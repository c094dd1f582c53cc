import { Injectable } from '@nestjs/common';
import { decodeMessage, KafkaErrorCode, type TopicDefinition } from '@ums/contracts';
import { type Consumer, Kafka } from 'kafkajs';
import { UnavailableError } from '../errors/coded-error';
import { KafkaNames } from './kafka-names';

/** A record of a topic range, decoded and validated against its topic's contract. */
export interface RangeRecord<V> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly value: V;
}

export interface TopicRangeRead<V extends object> {
  readonly topic: TopicDefinition<V>;
  /** Logical consumer group (KAFKA_NAMESPACE prefixes it); callers read one range of it at a time. */
  readonly groupId: string;
  /** The first records read are the first written at or after this time (the brokers' time index). */
  readonly since: Date;
  /** Gives up (UnavailableError KAFKA_RANGE_READ_TIMEOUT) when the range is not read by then. */
  readonly timeoutMs: number;
  /** Each fetched batch's records, in offset order per partition; awaited before the next batch. */
  readonly onBatch: (records: readonly RangeRecord<V>[]) => Promise<void>;
}

/** Where a partition's range starts, where it ends (exclusive: its end when the read began), and how far it got. */
interface Bound {
  next: bigint;
  readonly end: bigint;
}

/**
 * Reads a topic from a time to its end as of the call, outside any handler: for replays by time.
 * Offsets are never committed. A record that does not match its contract is skipped (its consumer
 * dead-lettered it when it was first read). A rebalance resumes each partition where the read got to.
 */
@Injectable()
export class TopicRangeReader {
  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
  ) {}

  /** Returns how many records were handed to onBatch. */
  async read<V extends object>(options: TopicRangeRead<V>): Promise<number> {
    const topic = this.names.topic(options.topic.name);
    const bounds = await this.bounds(topic, options.since);
    if (bounds.size === 0) return 0;
    const consumer = this.kafka.consumer({
      groupId: this.names.group(options.groupId),
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    try {
      return await this.consume(consumer, topic, bounds, options);
    } finally {
      await consumer.disconnect();
    }
  }

  private async consume<V extends object>(
    consumer: Consumer,
    topic: string,
    bounds: Map<number, Bound>,
    options: TopicRangeRead<V>,
  ): Promise<number> {
    let read = 0;
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<void>((resolve, reject) => {
      const timedOut = (): void =>
        reject(
          new UnavailableError(
            KafkaErrorCode.RangeReadTimeout,
            `Reading ${topic} did not reach its end within ${options.timeoutMs} ms`,
          ),
        );
      timer = setTimeout(timedOut, options.timeoutMs);
      consumer.on(consumer.events.GROUP_JOIN, () => {
        for (const [partition, bound] of bounds)
          consumer.seek({ topic, partition, offset: String(bound.next) });
      });
      consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
      const run = async (): Promise<void> => {
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const bound = bounds.get(batch.partition);
            if (bound === undefined) return;
            const records = decodeRange(options.topic, topic, batch.partition, batch.messages, bound);
            if (records.length > 0) await options.onBatch(records);
            read += records.length;
            const after = BigInt(batch.lastOffset()) + 1n;
            if (after > bound.next) bound.next = after;
            if (bound.next >= bound.end) bounds.delete(batch.partition);
            if (bounds.size === 0) resolve();
          },
        });
      };
      run().catch(reject);
    });
    try {
      await finished;
      return read;
    } finally {
      clearTimeout(timer);
      await consumer.stop();
    }
  }

  /** Per partition with records at or after `since`: where they start and where the partition ends now. */
  private async bounds(topic: string, since: Date): Promise<Map<number, Bound>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const ends = await admin.fetchTopicOffsets(topic);
      const starts = await admin.fetchTopicOffsetsByTimestamp(topic, since.getTime());
      const bounds = new Map<number, Bound>();
      for (const { partition, high } of ends) {
        const start = starts.find((s) => s.partition === partition)?.offset ?? high;
        // -1: no record at or after `since`.
        const next = BigInt(start) < 0n ? BigInt(high) : BigInt(start);
        if (next < BigInt(high)) bounds.set(partition, { next, end: BigInt(high) });
      }
      return bounds;
    } finally {
      await admin.disconnect();
    }
  }
}

/** The batch's records inside the partition's range, decoded; those not matching the contract are left out. */
function decodeRange<V extends object>(
  definition: TopicDefinition<V>,
  topic: string,
  partition: number,
  messages: readonly { readonly offset: string; readonly value: Buffer | null }[],
  bound: Bound,
): RangeRecord<V>[] {
  const records: RangeRecord<V>[] = [];
  for (const message of messages) {
    const offset = BigInt(message.offset);
    if (offset < bound.next || offset >= bound.end) continue;
    const decoded = decodeMessage(definition.value, message.value);
    if (decoded.ok) records.push({ topic, partition, offset: message.offset, value: decoded.value });
  }
  return records;
}
