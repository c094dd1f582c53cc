import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter } from 'prom-client';

@Injectable()
export class SchedulingMetrics {
  readonly cronFires: Counter;
  readonly missedFires: Counter;
  readonly runsScheduled: Counter;
  readonly tickErrors: Counter<'task'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.cronFires = new Counter({
      name: 'ums_scheduler_cron_fires_total',
      help: 'Cron fires that created a run',
      registers,
    });
    this.missedFires = new Counter({
      name: 'ums_scheduler_cron_missed_fires_total',
      help: 'Cron fire times skipped after downtime (only the newest missed one runs)',
      registers,
    });
    this.runsScheduled = new Counter({
      name: 'ums_scheduler_runs_scheduled_total',
      help: 'Due runs published to the expanders',
      registers,
    });
    this.tickErrors = new Counter({
      name: 'ums_scheduler_tick_errors_total',
      help: 'Scheduler and sweeper ticks that failed (retried on the next tick)',
      labelNames: ['task'],
      registers,
    });
  }
}
