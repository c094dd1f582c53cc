import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { TopicDefinition } from '@ums/contracts';
import { CompressionTypes, type IHeaders, Kafka, Partitioners, type Producer } from 'kafkajs';
import { HealthRegistry } from '../health/health-registry';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';

export interface RawRecord {
  readonly key: string | Buffer | null;
  readonly value: Buffer | string | null;
  readonly headers?: IHeaders;
}

/**
 * The one producer of a service: idempotent, acks=all, so a publish that resolved is on every
 * in-sync replica and a retried send never duplicates on the broker. Callers treat a resolved
 * publish as the point after which they may acknowledge upstream (HTTP 2xx, offset commit).
 */
@Injectable()
export class KafkaProducer implements OnModuleInit, OnApplicationShutdown {
  private readonly producer: Producer;
  private connected = false;

  constructor(
    kafka: Kafka,
    private readonly metrics: KafkaMetrics,
    health: HealthRegistry,
    private readonly names: KafkaNames,
  ) {
    // One request in flight keeps ordering per partition with idempotence on kafkajs. The default
    // (murmur2) partitioner places keys as Java clients do. Retries stay bounded (the client's retry
    // policy) so a caller learns that Kafka is unavailable (ingest answers 503) instead of hanging;
    // a publish retried by the caller after that may duplicate on the broker, which the idempotent
    // consumers absorb.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
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
    await this.producer.send({
      topic: this.names.topic(topicName),
      acks: -1,
      compression: CompressionTypes.None,
      messages: records.map((r) => ({ key: r.key, value: r.value, headers: r.headers })),
    });
    this.metrics.produced.inc({ topic: topicName }, records.length);
  }
}
