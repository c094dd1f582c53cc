import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicRunner, pruneInWindows } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CredentialRateSecondsRepository } from '../credentials/credential-rate-seconds.repository';
import { SweeperConfig } from './sweeper.config';
import { SweeperMetrics } from './sweeper.metrics';

/** Rows per DELETE: short statements, short locks. */
const WINDOW = 1_000;
/** Windows per tick: a backlog (a first start on an old table) is worked off over several ticks. */
const WINDOWS_PER_TICK = 50;

/**
 * Deletes the rate limiters' per-second figures (`credential_rate_seconds`, a row per credential and
 * second in use) past CREDENTIAL_RATE_RETENTION_MS, every CREDENTIAL_RATE_PRUNE_TICK_MS on each replica,
 * in windows of 1,000 rows by the second's index. Replicas may prune side by side: a row already
 * deleted is simply not found.
 */
@Injectable()
export class CredentialRateRetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.prune(),
    (error: unknown) => {
      this.metrics.tickErrors.inc();
      this.logger.warn({ err: error }, 'Per-second rate figures retention failed; next tick retries');
    },
  );

  constructor(
    private readonly repository: CredentialRateSecondsRepository,
    private readonly config: SweeperConfig,
    private readonly metrics: SweeperMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CredentialRateRetentionService.name);
  }

  onApplicationBootstrap(): void {
    this.runner.start(this.config.CREDENTIAL_RATE_PRUNE_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** Deletes window by window until one comes back short; returns the rows deleted. */
  async prune(): Promise<number> {
    const retentionMs = this.config.CREDENTIAL_RATE_RETENTION_MS;
    const deleted = await pruneInWindows((window) => this.repository.pruneOlderThan(retentionMs, window), {
      window: WINDOW,
      maxWindows: WINDOWS_PER_TICK,
      onDeleted: (rows) => this.metrics.credentialRatesPruned.inc(rows),
    });
    if (deleted > 0) this.logger.debug({ deleted }, 'Deleted per-second rate figures past their retention');
    return deleted;
  }
}
