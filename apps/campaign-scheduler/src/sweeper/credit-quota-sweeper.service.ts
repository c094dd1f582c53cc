import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { RunPauseReason } from '@ums/contracts';
import { quotaPeriodsAt, quotaRetentionFloor } from '@ums/domain';
import { PeriodicRunner, pruneInWindows } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CreditAccountsRepository } from '../credits-ledger/credit-accounts.repository';
import { PausedRunsRepository } from '../credits-ledger/paused-runs.repository';
import { PausedRunsResumer } from '../credits-ledger/paused-runs-resumer.service';
import { SweeperConfig } from './sweeper.config';
import { SweeperMetrics } from './sweeper.metrics';

/** Tenants whose quota-paused runs are resumed per tick (the rest on the next). */
const TENANTS_PER_TICK = 100;
/** Usage rows per DELETE, and DELETEs per prune. */
const WINDOW = 1_000;
const WINDOWS_PER_PRUNE = 50;

/**
 * Quotas over time: every CREDIT_QUOTA_RESUME_TICK_MS, runs a sender paused with QUOTA_EXHAUSTED are
 * resumed (through the run "resume" action) for each tenant whose current UTC day and month are under
 * its caps again: a new day or month began, or the operator raised or lifted a cap. Every
 * CREDIT_QUOTA_USAGE_PRUNE_TICK_MS, usage counts older than CREDIT_QUOTA_USAGE_RETENTION_DAYS are
 * deleted. Periods follow the database's UTC clock. Replicas may run side by side: a run another
 * replica resumed is no longer PAUSED, and its lock keeps two from resuming it at once.
 */
@Injectable()
export class CreditQuotaSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly resumeRunner = new PeriodicRunner(
    () => this.resumeUnderQuota(),
    (error: unknown) => this.failed(error, 'Resuming runs paused for quota failed; next tick retries'),
  );
  private readonly pruneRunner = new PeriodicRunner(
    () => this.pruneUsage(),
    (error: unknown) => this.failed(error, 'Pruning quota usage counts failed; next tick retries'),
  );

  constructor(
    private readonly accounts: CreditAccountsRepository,
    private readonly paused: PausedRunsRepository,
    private readonly resumer: PausedRunsResumer,
    private readonly config: SweeperConfig,
    private readonly metrics: SweeperMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CreditQuotaSweeper.name);
  }

  onApplicationBootstrap(): void {
    this.resumeRunner.start(this.config.CREDIT_QUOTA_RESUME_TICK_MS);
    this.pruneRunner.start(this.config.CREDIT_QUOTA_USAGE_PRUNE_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.resumeRunner.stop(), this.pruneRunner.stop()]);
  }

  /** Resumes the quota-paused runs of tenants under their caps; returns how many runs. */
  async resumeUnderQuota(): Promise<number> {
    const periods = quotaPeriodsAt(await this.accounts.dbNow());
    const tenants = await this.paused.tenantsUnderQuota(periods, TENANTS_PER_TICK);
    let resumed = 0;
    for (const tenantId of tenants) {
      resumed += await this.resumer.resume(tenantId, RunPauseReason.QuotaExhausted);
    }
    return resumed;
  }

  /** Deletes usage counts past the retention, window by window; returns how many. */
  async pruneUsage(): Promise<number> {
    const floor = quotaRetentionFloor(
      await this.accounts.dbNow(),
      this.config.CREDIT_QUOTA_USAGE_RETENTION_DAYS,
    );
    const deleted = await pruneInWindows((window) => this.paused.pruneUsage(floor, window), {
      window: WINDOW,
      maxWindows: WINDOWS_PER_PRUNE,
      onDeleted: () => undefined,
    });
    if (deleted > 0) this.logger.debug({ deleted, floor }, 'Deleted quota usage counts past their retention');
    return deleted;
  }

  private failed(error: unknown, message: string): void {
    this.metrics.tickErrors.inc();
    this.logger.warn({ err: error }, message);
  }
}
