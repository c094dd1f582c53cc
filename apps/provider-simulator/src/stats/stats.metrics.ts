import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

@Injectable()
export class StatsMetrics {
  readonly sends: Counter<'credential_id' | 'provider' | 'outcome'>;
  private trackedIdsReader: () => number = () => 0;

  /** The gauge is read at scrape time, so the hot path never updates it. */
  readTrackedIdsFrom(reader: () => number): void {
    this.trackedIdsReader = reader;
  }

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.sends = new Counter({
      name: 'ums_sim_sends_total',
      help: 'Messages the simulator answered, by outcome (accepted, rejected_permanent, throttled, error_5xx, timeout, auth_failed, invalid)',
      labelNames: ['credential_id', 'provider', 'outcome'],
      registers,
    });
    const reader = (): number => this.trackedIdsReader();
    new Gauge({
      name: 'ums_sim_tracked_message_ids',
      help: 'Message ids counted one by one for duplicate detection',
      registers,
      collect(): void {
        this.set(reader());
      },
    });
  }
}
