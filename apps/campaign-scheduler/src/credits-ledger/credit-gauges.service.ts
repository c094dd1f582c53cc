import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicRunner } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { CreditsConfig } from './credits.config';
import { CreditsMetrics, MAX_BALANCE_SERIES } from './credits.metrics';
import { PausedRunsRepository } from './paused-runs.repository';

/**
 * Sets ums_credit_balance (the MAX_BALANCE_SERIES lowest metered balances, all series replaced at each
 * read) and ums_runs_paused_for_credits every CREDIT_METRICS_TICK_MS. Every replica reports the same
 * figures: the alert rules take their max or min.
 */
@Injectable()
export class CreditGauges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.refresh(),
    (error: unknown) => {
      this.metrics.refreshErrors.inc();
      this.logger.warn({ err: error }, 'Reading the credit gauges failed; next tick retries');
    },
  );

  constructor(
    private readonly accounts: CreditAccountsRepository,
    private readonly paused: PausedRunsRepository,
    private readonly config: CreditsConfig,
    private readonly metrics: CreditsMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CreditGauges.name);
  }

  onApplicationBootstrap(): void {
    this.runner.start(this.config.CREDIT_METRICS_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  async refresh(): Promise<void> {
    const [lowest, paused] = await Promise.all([
      this.accounts.lowestMetered(MAX_BALANCE_SERIES),
      this.paused.pausedForCredits(),
    ]);
    this.metrics.balance.reset();
    for (const account of lowest) {
      this.metrics.balance.set({ tenant: account.tenantId, channel: account.channel }, account.balance);
    }
    this.metrics.pausedForCredits.set(paused);
  }
}
