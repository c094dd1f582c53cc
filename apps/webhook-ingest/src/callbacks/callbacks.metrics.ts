import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Histogram } from 'prom-client';

export type CallbackResult =
  'accepted' | 'bad_signature' | 'malformed' | 'unknown_credential' | 'unavailable';

@Injectable()
export class CallbacksMetrics {
  readonly callbacks: Counter<'provider' | 'result'>;
  readonly events: Counter<'provider' | 'kind'>;
  readonly seconds: Histogram<'provider'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.callbacks = new Counter({
      name: 'ums_ingest_callbacks_total',
      help: 'Provider callback posts, by provider and result (accepted means published to Kafka, then answered 2xx)',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.events = new Counter({
      name: 'ums_ingest_events_total',
      help: 'Provider events published, by kind (status, inbound, ignored: valid items that carry nothing for us)',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.seconds = new Histogram({
      name: 'ums_ingest_callback_seconds',
      help: 'Time from a callback body read to its events acknowledged by Kafka',
      labelNames: ['provider'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
  }
}
