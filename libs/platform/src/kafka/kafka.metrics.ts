import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '../metrics/metrics-registry';

export type ProcessOutcome = 'ok' | 'retried' | 'dead_lettered' | 'invalid';

@Injectable()
export class KafkaMetrics {
  readonly produced: Counter<'topic'>;
  readonly processed: Counter<'topic' | 'group' | 'outcome'>;
  readonly handlerSeconds: Histogram<'topic' | 'group'>;
  readonly lag: Gauge<'topic' | 'partition' | 'group'>;
  readonly crashes: Counter<'group'>;

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
  }
}
