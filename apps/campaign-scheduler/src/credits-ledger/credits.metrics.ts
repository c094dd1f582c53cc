import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

/**
 * At most this many `ums_credit_balance` series: the metered accounts with the lowest balances. The
 * low-balance alert looks at the bottom, so an account left out has more credits than every one shown.
 */
export const MAX_BALANCE_SERIES = 500;

@Injectable()
export class CreditsMetrics {
  readonly balance: Gauge<'tenant' | 'channel'>;
  readonly topUps: Counter<'channel'>;
  readonly pausedForCredits: Gauge;
  readonly refreshErrors: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.balance = new Gauge({
      name: 'ums_credit_balance',
      help:
        `Credits left per metered tenant account, read every CREDIT_METRICS_TICK_MS; the ` +
        `${MAX_BALANCE_SERIES} lowest balances only (bounded label cardinality)`,
      labelNames: ['tenant', 'channel'],
      registers,
    });
    this.topUps = new Counter({
      name: 'ums_credit_top_ups_total',
      help: 'Credit top-ups made (a repeated reference is not counted again)',
      labelNames: ['channel'],
      registers,
    });
    this.pausedForCredits = new Gauge({
      name: 'ums_runs_paused_for_credits',
      help: 'Runs a sender paused because their tenant ran out of credits (pause_reason CREDITS_EXHAUSTED)',
      registers,
    });
    this.refreshErrors = new Counter({
      name: 'ums_credit_metrics_refresh_errors_total',
      help: 'Reads of the credit gauges that failed (retried on the next tick)',
      registers,
    });
  }
}
