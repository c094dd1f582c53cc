import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge, Histogram } from 'prom-client';

export type LeaseOutcome = 'taken' | 'refused';

@Injectable()
export class ExpansionMetrics {
  readonly leases: Counter<'outcome'>;
  readonly batchesPublished: Counter<'phase'>;
  readonly recipientsPublished: Counter<'phase'>;
  readonly fenced: Counter;
  readonly runsExpanded: Counter;
  readonly runErrors: Counter;
  readonly activeRuns: Gauge;
  readonly waitingRuns: Gauge;
  readonly stepSeconds: Histogram;
  readonly phaseSeconds: Histogram<'phase'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.leases = new Counter({
      name: 'ums_expander_leases_total',
      help: 'Run-requested events by outcome (refused: duplicate, outdated epoch, or held by another expander)',
      labelNames: ['outcome'],
      registers,
    });
    this.batchesPublished = new Counter({
      name: 'ums_expander_batches_published_total',
      help: 'Batches published (phase expand: new audience; backlog: pending messages behind the cursor)',
      labelNames: ['phase'],
      registers,
    });
    this.recipientsPublished = new Counter({
      name: 'ums_expander_recipients_published_total',
      help: 'Recipients published in batches',
      labelNames: ['phase'],
      registers,
    });
    this.fenced = new Counter({
      name: 'ums_expander_fenced_total',
      help: 'Checkpoints refused because another expander took the lease over (newer epoch)',
      registers,
    });
    this.runsExpanded = new Counter({
      name: 'ums_expander_runs_expanded_total',
      help: 'Runs whose audience was fully expanded',
      registers,
    });
    this.runErrors = new Counter({
      name: 'ums_expander_run_errors_total',
      help: 'Errors while expanding a run (retried in place; the stale-checkpoint sweeper heals what remains)',
      registers,
    });
    this.activeRuns = new Gauge({
      name: 'ums_expander_active_runs',
      help: 'Runs this process expands',
      registers,
    });
    this.waitingRuns = new Gauge({
      name: 'ums_expander_backpressured_runs',
      help: 'Runs waiting for senders to catch up',
      registers,
    });
    this.phaseSeconds = new Histogram({
      name: 'ums_expander_phase_duration_seconds',
      help: 'Parts of a step: read (audience page), create (message rows), pending (ids read back), publish (Kafka), checkpoint',
      labelNames: ['phase'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.stepSeconds = new Histogram({
      name: 'ums_expander_step_duration_seconds',
      help: 'One step: read contacts, create messages, publish batches, commit the checkpoint',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
  }
}
