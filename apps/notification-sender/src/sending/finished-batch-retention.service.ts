import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MetricsRegistry, PeriodicRunner, pruneInWindows } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { Counter } from 'prom-client';
import { MessageClaimsRepository } from './message-claims.repository';
import { SendingConfig } from './sending.config';

/** Rows per DELETE: short statements, short locks. */
const WINDOW = 1_000;
/** Windows per tick: a backlog (a first start on an old table) is worked off over several ticks. */
const WINDOWS_PER_TICK = 50;

/**
 * Deletes the finished-batch inbox rows (`processed_events`, written once per batch by finishBatch)
 * past SENDER_FINISHED_BATCH_RETENTION_MS, every SENDER_FINISHED_BATCH_PRUNE_TICK_MS on each replica:
 * without it the table grows by a row per batch ever sent (10,000 per 1,000,000 recipients).
 */
@Injectable()
export class FinishedBatchRetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.prune(),
    (error: unknown) =>
      this.logger.warn({ err: error }, 'Finished-batch inbox retention failed; next tick retries'),
  );
  private readonly pruned: Counter;

  constructor(
    private readonly claims: MessageClaimsRepository,
    private readonly config: SendingConfig,
    private readonly logger: PinoLogger,
    registry: MetricsRegistry,
  ) {
    this.logger.setContext(FinishedBatchRetentionService.name);
    this.pruned = new Counter({
      name: 'ums_sender_finished_batches_pruned_total',
      help: 'Finished-batch inbox rows deleted past SENDER_FINISHED_BATCH_RETENTION_MS',
      registers: [registry],
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.SENDER_FINISHED_BATCH_RETENTION_MS === 0) return;
    this.runner.start(this.config.SENDER_FINISHED_BATCH_PRUNE_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** One tick: deletes window by window until one comes back short; returns the rows deleted. */
  async prune(): Promise<number> {
    const deleted = await pruneInWindows(
      (window) => this.claims.pruneFinishedBatches(this.config.SENDER_FINISHED_BATCH_RETENTION_MS, window),
      { window: WINDOW, maxWindows: WINDOWS_PER_TICK, onDeleted: (rows) => this.pruned.inc(rows) },
    );
    if (deleted > 0) this.logger.info({ deleted }, 'Deleted finished-batch inbox rows past their retention');
    return deleted;
  }
}
