import { Injectable, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { AllTopics, cloudEventSource, KafkaErrorCode, type TopicDefinition } from '@ums/contracts';
import { CompressionTypes, type IHeaders, Kafka, type Producer, type TopicMessages } from 'kafkajs';
import { ServiceInfo } from '../bootstrap/service-info';
import { KafkaConfig } from '../config/common.config';
import { UnavailableError } from '../errors/coded-error';
import { HealthRegistry } from '../health/health-registry';
import { CloudEventStamp, onceNow } from './cloud-event-headers';
import { describeKafkaFailure } from './kafka-connection-check';
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
 * Broker answers after which an idempotent kafkajs producer never sends again: its sequence numbers
 * no longer match the partition leader's (a leader moved or restarted and lost the producer's state).
 * The producer is replaced, and the publish fails as unavailable so that its caller tries again.
 */
const PRODUCER_STATE_LOST = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/**
 * The one producer of a service: idempotent, acks=all, so a publish that resolved is on every
 * in-sync replica and a retried send never duplicates on the broker. Callers treat a resolved
 * publish as the point after which they may acknowledge upstream (HTTP 2xx, offset commit).
 *
 * Idempotence on kafkajs allows one request in flight, so publishes made while a request is on its
 * way wait and then go together in the next one (no linger: an idle producer sends at once). One
 * request per call serialized a service's publishes behind broker round trips (a sender's batches,
 * ingest's callbacks). Order is kept: calls go out in the order they were made.
 *
 * Records of a topic whose definition has `cloudEvent` get the CloudEvents headers here, for every
 * producer of the topic (cloud-event-headers.ts), with this service as `ce_source`.
 */
@Injectable()
export class KafkaProducer implements OnModuleInit, OnApplicationShutdown {
  private producer: Producer;
  private connected = false;
  /** Set when a replaced producer has not connected yet (the next request connects it). */
  private replaced = false;
  private readonly queue: QueuedPublish[] = [];
  private sending = false;
  /** Why the last request failed when the settings are the cause (TLS, SASL), until one succeeds. */
  private misconfigured?: string;
  /** The CloudEvents headers of each topic published to, by definition (null: a topic without). */
  private readonly stamps = new WeakMap<object, CloudEventStamp | null>();
  /** The same for bytes forwarded by logical topic name (dead-letter replays): the contracts' topics. */
  private readonly rawStamps = new Map<string, CloudEventStamp>();

  constructor(
    private readonly kafka: Kafka,
    private readonly metrics: KafkaMetrics,
    health: HealthRegistry,
    private readonly names: KafkaNames,
    private readonly service: ServiceInfo,
    /** Lets readiness and start-up name the setting behind a TLS or SASL failure. */
    @Optional() private readonly config?: KafkaConfig,
  ) {
    this.producer = this.newProducer();
    for (const topic of AllTopics) {
      const stamp = this.stampOf(topic);
      if (stamp !== undefined) this.rawStamps.set(topic.name, stamp);
    }
    health.register('kafka-producer', () =>
      this.connected && this.misconfigured === undefined
        ? { ok: true }
        : { ok: false, detail: this.misconfigured ?? 'not connected' },
    );
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.producer.connect();
    } catch (error: unknown) {
      // Start-up's check passed or found the broker unreachable; this names what failed since.
      throw this.config === undefined ? error : describeKafkaFailure(error, this.config);
    }
  }

  /** Remembers a failure caused by the settings, for readiness; a success clears it. */
  private noteOutcome(error?: unknown): void {
    if (error === undefined || this.config === undefined) {
      this.misconfigured = undefined;
      return;
    }
    const failure = describeKafkaFailure(error, this.config);
    this.misconfigured = failure.misconfigured ? failure.message : undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.disconnect();
  }

  /**
   * One request in flight keeps ordering per partition with idempotence on kafkajs. Keys land where
   * kafkajs's default partitioner and Java clients put them (murmur2-partitioner.ts). Retries stay
   * bounded (the client's retry policy) so a caller learns that Kafka is unavailable (ingest
   * answers 503) instead of hanging; a publish retried by the caller after that may duplicate on
   * the broker, which the idempotent consumers absorb.
   */
  private newProducer(): Producer {
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Murmur2Partitioner,
    });
    producer.on(producer.events.CONNECT, () => {
      if (producer === this.producer) this.connected = true;
    });
    producer.on(producer.events.DISCONNECT, () => {
      if (producer === this.producer) this.connected = false;
    });
    return producer;
  }

  /**
   * Replaces a producer whose sequence state the broker lost; the next request connects the new one.
   * Returns the error its callers get: unavailable (they try again), with the broker's answer as cause.
   */
  private replaceProducer(reason: string, cause: unknown): UnavailableError {
    const old = this.producer;
    this.producer = this.newProducer();
    this.connected = false;
    this.replaced = true;
    this.metrics.producerResets.inc({ reason });
    old.disconnect().catch(() => undefined);
    return new UnavailableError(
      KafkaErrorCode.ProducerReset,
      `The Kafka producer lost its sequence state (${reason}) and was replaced; publish again`,
      { dependency: 'kafka' },
      { cause },
    );
  }

  /** Publishes values (validated by their types), keyed as their topic defines. */
  async publish<V extends object>(
    topic: TopicDefinition<V>,
    values: readonly V[],
    headers?: IHeaders,
  ): Promise<void> {
    if (values.length === 0) return;
    const stamp = this.stampOf(topic);
    if (stamp === undefined) {
      await this.enqueue(
        topic.name,
        values.map((value) => ({ key: topic.keyOf(value), value: JSON.stringify(value), headers })),
      );
      return;
    }
    const now = onceNow();
    await this.enqueue(
      topic.name,
      values.map((value) => ({
        key: topic.keyOf(value),
        value: JSON.stringify(value),
        headers: stamp.headersOf(value, headers, now),
      })),
    );
  }

  /** The topic's CloudEvents headers builder, made on its first publish; undefined without `cloudEvent`. */
  private stampOf(topic: Pick<TopicDefinition<object>, 'cloudEvent'>): CloudEventStamp | undefined {
    let stamp = this.stamps.get(topic);
    if (stamp === undefined) {
      stamp =
        topic.cloudEvent === undefined
          ? null
          : new CloudEventStamp({
              cloudEvent: topic.cloudEvent,
              source: cloudEventSource(this.service.name),
            });
      this.stamps.set(topic, stamp);
    }
    return stamp ?? undefined;
  }

  /**
   * Publishes records as they are (used to forward bytes to retry tiers and dead letters).
   * `topicName` is the logical name from the contracts; the namespace is added here. A record for a
   * CloudEvents topic without `ce_id` (a replayed dead letter written before the headers existed)
   * gets them from its value.
   */
  async publishRaw(topicName: string, records: readonly RawRecord[]): Promise<void> {
    if (records.length === 0) return;
    const stamp = this.rawStamps.get(topicName);
    if (stamp === undefined) {
      await this.enqueue(topicName, records);
      return;
    }
    const now = onceNow();
    await this.enqueue(
      topicName,
      records.map((r) => ({ ...r, headers: stamp.rawHeadersOf(r.value, r.headers, now) })),
    );
  }

  /** Queues records for the next request and resolves once the broker has them (acks=all). */
  private async enqueue(topicName: string, records: readonly RawRecord[]): Promise<void> {
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
          if (this.replaced) {
            await this.producer.connect();
            this.replaced = false;
          }
          await this.producer.sendBatch({
            acks: -1,
            compression: CompressionTypes.None,
            topicMessages: topicMessages(taken),
          });
          this.noteOutcome();
          for (const publish of taken) publish.resolve();
        } catch (error: unknown) {
          this.noteOutcome(error);
          // Every call of the request learns it failed (it may be partly on the broker: at least once).
          const lost = producerStateLost(error);
          const reported = lost === undefined ? error : this.replaceProducer(lost, error);
          for (const publish of taken) publish.reject(reported);
        }
      }
    } finally {
      this.sending = false;
    }
  }
}

/** The broker's error type when `error` (or one of its causes) says the producer's state is lost. */
export function producerStateLost(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const e = current as Record<string, unknown>;
    if (typeof e['type'] === 'string' && PRODUCER_STATE_LOST.has(e['type'])) return e['type'];
    current = e['cause'] ?? e['originalError'];
  }
  return undefined;
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
  if (headers === undefined) return 0;
  let bytes = 0;
  // Every CloudEvents record has headers, so this runs per record on hot paths: no entries arrays, and
  // short strings counted here (Buffer.byteLength took about twice as long on seven short headers).
  for (const name in headers) {
    bytes += utf8Bytes(name);
    const value = headers[name];
    if (Array.isArray(value)) for (const v of value) bytes += headerValueBytes(v);
    else if (value !== undefined) bytes += headerValueBytes(value);
  }
  return bytes;
}

function headerValueBytes(value: string | Buffer): number {
  return typeof value === 'string' ? utf8Bytes(value) : value.length;
}

/** Bytes of a string in UTF-8, as Buffer.byteLength counts them (a lone surrogate is written as three). */
export function utf8Bytes(s: string): number {
  let bytes = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
      continue;
    }
    const next = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      // A pair: two code units, four bytes.
      bytes += 2;
      i++;
      continue;
    }
    bytes += 2;
  }
  return bytes;
}

function byteLength(value: string | Buffer | null): number {
  if (value === null) return 0;
  return typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}
