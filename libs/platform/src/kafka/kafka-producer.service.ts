import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { TopicDefinition } from '@ums/contracts';
import { CompressionTypes, type IHeaders, Kafka, type Producer, type TopicMessages } from 'kafkajs';
import { HealthRegistry } from '../health/health-registry';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { Murmur2Partitioner } from './murmur2-partitioner';

export interface RawRecord {
  readonly key: string | Buffer | null;
  readonly value: Buffer | string | null;
  readonly headers?: IHeaders;
}

/** A publish call waiting for its records to be on the broker. */
interface QueuedPublish {
  readonly topic: string;
  readonly records: readonly RawRecord[];
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Bytes of records coalesced into one produce request, well under the broker's default 1 MiB
 * message.max.bytes (which bounds each partition's record batch); a single larger call goes alone.
 */
const REQUEST_BYTES = 512 * 1024;

/**
 * The one producer of a service: idempotent, acks=all, so a publish that resolved is on every
 * in-sync replica and a retried send never duplicates on the broker. Callers treat a resolved
 * publish as the point after which they may acknowledge upstream (HTTP 2xx, offset commit).
 *
 * Idempotence on kafkajs allows one request in flight, so publishes made while a request is on its
 * way wait and then go together in the next one (no linger: an idle producer sends at once). One
 * request per call serialized a service's publishes behind broker round trips (a sender's batches,
 * ingest's callbacks). Order is kept: calls go out in the order they were made.
 */
@Injectable()
export class KafkaProducer implements OnModuleInit, OnApplicationShutdown {
  private readonly producer: Producer;
  private connected = false;
  private readonly queue: QueuedPublish[] = [];
  private sending = false;

  constructor(
    kafka: Kafka,
    private readonly metrics: KafkaMetrics,
    health: HealthRegistry,
    private readonly names: KafkaNames,
  ) {
    // One request in flight keeps ordering per partition with idempotence on kafkajs. Keys land where
    // kafkajs's default partitioner and Java clients put them (murmur2-partitioner.ts). Retries stay
    // bounded (the client's retry policy) so a caller learns that Kafka is unavailable (ingest
    // answers 503) instead of hanging; a publish retried by the caller after that may duplicate on
    // the broker, which the idempotent consumers absorb.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Murmur2Partitioner,
    });
    this.producer.on(this.producer.events.CONNECT, () => (this.connected = true));
    this.producer.on(this.producer.events.DISCONNECT, () => (this.connected = false));
    health.register('kafka-producer', () => ({
      ok: this.connected,
      detail: this.connected ? undefined : 'not connected',
    }));
  }

  async onModuleInit(): Promise<void> {
    await this.producer.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.disconnect();
  }

  /** Publishes values (validated by their types), keyed as their topic defines. */
  async publish<V extends object>(
    topic: TopicDefinition<V>,
    values: readonly V[],
    headers?: IHeaders,
  ): Promise<void> {
    if (values.length === 0) return;
    await this.publishRaw(
      topic.name,
      values.map((value) => ({ key: topic.keyOf(value), value: JSON.stringify(value), headers })),
    );
  }

  /**
   * Publishes records as they are (used to forward bytes to retry tiers and dead letters).
   * `topicName` is the logical name from the contracts; the namespace is added here.
   */
  async publishRaw(topicName: string, records: readonly RawRecord[]): Promise<void> {
    if (records.length === 0) return;
    const topic = this.names.topic(topicName);
    let bytes = 0;
    for (const r of records) bytes += byteLength(r.key) + byteLength(r.value) + headerBytes(r.headers) + 64;
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, records, bytes, resolve, reject });
      if (!this.sending) void this.drain();
    });
    this.metrics.produced.inc({ topic: topicName }, records.length);
  }

  /** Sends what is queued, one request at a time, until nothing is left; never rejects. */
  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0) {
        const taken: QueuedPublish[] = [];
        let bytes = 0;
        while (this.queue.length > 0) {
          const next = this.queue[0] as QueuedPublish;
          if (taken.length > 0 && bytes + next.bytes > REQUEST_BYTES) break;
          taken.push(next);
          bytes += next.bytes;
          this.queue.shift();
        }
        try {
          await this.producer.sendBatch({
            acks: -1,
            compression: CompressionTypes.None,
            topicMessages: topicMessages(taken),
          });
          for (const publish of taken) publish.resolve();
        } catch (error: unknown) {
          // Every call of the request learns it failed (it may be partly on the broker: at least once).
          for (const publish of taken) publish.reject(error);
        }
      }
    } finally {
      this.sending = false;
    }
  }
}

/** Calls' records per topic, in call order (consecutive calls to one topic share an entry). */
function topicMessages(publishes: readonly QueuedPublish[]): TopicMessages[] {
  const byTopic = new Map<string, TopicMessages>();
  for (const { topic, records } of publishes) {
    let entry = byTopic.get(topic);
    if (entry === undefined) {
      entry = { topic, messages: [] };
      byTopic.set(topic, entry);
    }
    for (const r of records) entry.messages.push({ key: r.key, value: r.value, headers: r.headers });
  }
  return [...byTopic.values()];
}

/**
 * Header bytes count with the record: a record whose headers make it too large then goes in a
 * request of its own, so that the broker's refusal never fails other callers' records with it.
 */
function headerBytes(headers: IHeaders | undefined): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers ?? {})) {
    bytes += Buffer.byteLength(name);
    for (const v of Array.isArray(value) ? value : [value]) bytes += v === undefined ? 0 : byteLength(v);
  }
  return bytes;
}

function byteLength(value: string | Buffer | null): number {
  if (value === null) return 0;
  return typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}
