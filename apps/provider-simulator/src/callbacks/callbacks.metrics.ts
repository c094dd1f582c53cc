import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

@Injectable()
export class CallbacksMetrics {
  readonly events: Counter<'provider' | 'result'>;
  readonly posts: Counter<'provider' | 'result'>;
  private pendingReader: () => number = () => 0;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.events = new Counter({
      name: 'ums_sim_callback_events_total',
      help: 'Status callbacks by result: delivered (posted, 2xx), failed (retries exhausted), dropped (queue full)',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.posts = new Counter({
      name: 'ums_sim_callback_posts_total',
      help: 'Callback HTTP posts by result: ok, retried, failed',
      labelNames: ['provider', 'result'],
      registers,
    });
    const reader = (): number => this.pendingReader();
    new Gauge({
      name: 'ums_sim_callback_pending',
      help: 'Status callbacks waiting or in flight',
      registers,
      collect(): void {
        this.set(reader());
      },
    });
  }

  /** The gauge is read at scrape time, so the hot path never updates it. */
  readPendingFrom(reader: () => number): void {
    this.pendingReader = reader;
  }
}
