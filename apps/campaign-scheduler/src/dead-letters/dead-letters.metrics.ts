import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

@Injectable()
export class DeadLettersMetrics {
  readonly consumed: Counter<'source_topic' | 'error_code'>;
  readonly open: Gauge<'source_topic' | 'error_code'>;
  readonly pruned: Counter;
  readonly maintenanceErrors: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.consumed = new Counter({
      name: 'ums_dead_letters_consumed_total',
      help: 'Dead-letter entries consumed and stored (one consumed again counts again; it is stored once)',
      labelNames: ['source_topic', 'error_code'],
      registers,
    });
    this.open = new Gauge({
      name: 'ums_dead_letters_open',
      help: 'Stored dead letters never replayed, by source topic and error code (every replica reports the same count)',
      labelNames: ['source_topic', 'error_code'],
      registers,
    });
    this.pruned = new Counter({
      name: 'ums_dead_letters_pruned_total',
      help: 'Replayed dead letters deleted past DEAD_LETTER_REPLAYED_RETENTION_MS',
      registers,
    });
    this.maintenanceErrors = new Counter({
      name: 'ums_dead_letter_maintenance_errors_total',
      help: 'Dead-letter maintenance ticks that failed (retried on the next tick)',
      registers,
    });
  }
}
