import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '../metrics/metrics-registry';

export type ProcessOutcome = 'ok' | 'retried' | 'dead_lettered' | 'invalid';

/** What became of a dead letter the broker refused: stored reduced, or only logged. */
export type DeadLetterFallback = 'reduced' | 'dropped';

@Injectable()
export class KafkaMetrics {
  readonly produced: Counter<'topic'>;
  readonly processed: Counter<'topic' | 'group' | 'outcome'>;
  readonly handlerSeconds: Histogram<'topic' | 'group'>;
  readonly lag: Gauge<'topic' | 'partition' | 'group'>;
  readonly crashes: Counter<'group'>;
  readonly dependencyWaits: Counter<'group' | 'dependency'>;
  readonly chunksWaiting: Gauge<'group' | 'dependency'>;
  readonly deadLetterFallbacks: Counter<'group' | 'outcome'>;
  readonly producerResets: Counter<'reason'>;

  constructor(registry: MetricsRegistry) {
    this.produced = new Counter({
      name: 'ums_kafka_messages_produced_total',
      help: 'Messages acknowledged by Kafka (acks=all)',
      labelNames: ['topic'],
      registers: [registry],
    });
    this.processed = new Counter({
      name: 'ums_kafka_messages_processed_total',
      help: 'Consumed messages by outcome',
      labelNames: ['topic', 'group', 'outcome'],
      registers: [registry],
    });
    this.handlerSeconds = new Histogram({
      name: 'ums_kafka_handler_duration_seconds',
      help: 'Time a handler took for one chunk of messages',
      labelNames: ['topic', 'group'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    });
    this.lag = new Gauge({
      name: 'ums_kafka_consumer_lag',
      help: 'Messages behind the partition end after the last batch',
      labelNames: ['topic', 'partition', 'group'],
      registers: [registry],
    });
    this.crashes = new Counter({
      name: 'ums_kafka_consumer_crashes_total',
      help: 'Consumer crashes reported by kafkajs',
      labelNames: ['group'],
      registers: [registry],
    });
    this.dependencyWaits = new Counter({
      name: 'ums_kafka_dependency_waits_total',
      help: 'Chunks that started waiting for an unavailable dependency instead of failing',
      labelNames: ['group', 'dependency'],
      registers: [registry],
    });
    this.chunksWaiting = new Gauge({
      name: 'ums_kafka_chunks_waiting',
      help: 'Chunks waiting now for an unavailable dependency (their partition held)',
      labelNames: ['group', 'dependency'],
      registers: [registry],
    });
    this.deadLetterFallbacks = new Counter({
      name: 'ums_kafka_dead_letter_fallbacks_total',
      help: 'Dead letters the broker refused: stored reduced, or dropped after logging their coordinates',
      labelNames: ['group', 'outcome'],
      registers: [registry],
    });
    this.producerResets = new Counter({
      name: 'ums_kafka_producer_resets_total',
      help: 'Idempotent producers replaced after the broker lost their sequence state (failover, restart)',
      labelNames: ['reason'],
      registers: [registry],
    });
  }
}
