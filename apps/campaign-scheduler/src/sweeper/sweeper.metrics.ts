import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

@Injectable()
export class SweeperMetrics {
  readonly checkpointAge: Gauge<'run_id' | 'campaign_id'>;
  readonly oldestCheckpointAge: Gauge;
  readonly retries: Counter;
  readonly failures: Counter;
  readonly completed: Counter;
  readonly tickErrors: Counter;
  readonly credentialRatesPruned: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.checkpointAge = new Gauge({
      name: 'ums_run_checkpoint_age_seconds',
      help: 'Seconds since the checkpoint of each run being expanded last moved',
      labelNames: ['run_id', 'campaign_id'],
      registers,
    });
    this.oldestCheckpointAge = new Gauge({
      name: 'ums_run_checkpoint_age_max_seconds',
      help: 'Oldest checkpoint among runs being expanded (0 when none)',
      registers,
    });
    this.retries = new Counter({
      name: 'ums_run_stale_retries_total',
      help: 'Runs re-requested because their checkpoint went stale',
      registers,
    });
    this.failures = new Counter({
      name: 'ums_run_stale_failures_total',
      help: 'Runs FAILED after exhausting stale-checkpoint retries',
      registers,
    });
    this.completed = new Counter({ name: 'ums_runs_completed_total', help: 'Runs completed', registers });
    this.tickErrors = new Counter({
      name: 'ums_sweeper_tick_errors_total',
      help: 'Sweeper ticks that failed (retried on the next tick)',
      registers,
    });
    this.credentialRatesPruned = new Counter({
      name: 'ums_credential_rate_seconds_pruned_total',
      help: 'Per-second rate-limiter rows (credential_rate_seconds) deleted past CREDENTIAL_RATE_RETENTION_MS',
      registers,
    });
  }
}
