import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicRunner, pruneInWindows } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { DeadLettersConfig } from './dead-letters.config';
import { DeadLettersMetrics } from './dead-letters.metrics';
import { DeadLettersRepository } from './dead-letters.repository';

/** Rows per DELETE: short statements, short locks. */
const WINDOW = 1_000;
/** Windows per tick: a backlog (a first start on an old table) is worked off over several ticks. */
const WINDOWS_PER_TICK = 50;

/**
 * Every DEAD_LETTER_MAINTENANCE_TICK_MS on each replica: sets `ums_dead_letters_open` (the entries waiting
 * for an operator's decision, what to alert on) and deletes entries replayed longer ago than
 * DEAD_LETTER_REPLAYED_RETENTION_MS, so the table does not keep every entry ever handled. Never-replayed
 * entries are kept however old: each holds a message nobody has decided on yet. Replicas may prune side
 * by side; a row already deleted is simply not found.
 */
@Injectable()
export class DeadLetterMaintenanceService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.tick(),
    (error: unknown) => {
      this.metrics.maintenanceErrors.inc();
      this.logger.warn({ err: error }, 'Dead-letter maintenance failed; next tick retries');
    },
  );

  constructor(
    private readonly repository: DeadLettersRepository,
    private readonly config: DeadLettersConfig,
    private readonly metrics: DeadLettersMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(DeadLetterMaintenanceService.name);
  }

  onApplicationBootstrap(): void {
    this.runner.start(this.config.DEAD_LETTER_MAINTENANCE_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** Both parts, each whatever the other does; the first failure is rethrown for the runner to report. */
  async tick(): Promise<void> {
    const [open, pruned] = await Promise.allSettled([this.refreshOpen(), this.prune()]);
    if (open.status === 'rejected') throw open.reason;
    if (pruned.status === 'rejected') throw pruned.reason;
  }

  /** Sets the open gauge from the table: a label pair with nothing open left disappears. */
  async refreshOpen(): Promise<void> {
    const counts = await this.repository.countOpen();
    // No await between reset and set: a scrape never sees the gauge half written.
    this.metrics.open.reset();
    for (const { sourceTopic, errorCode, count } of counts) {
      this.metrics.open.set({ source_topic: sourceTopic, error_code: errorCode }, count);
    }
  }

  /** Deletes window by window until one comes back short; returns the rows deleted. */
  async prune(): Promise<number> {
    const retentionMs = this.config.DEAD_LETTER_REPLAYED_RETENTION_MS;
    if (retentionMs === 0) return 0;
    const deleted = await pruneInWindows((window) => this.repository.pruneReplayed(retentionMs, window), {
      window: WINDOW,
      maxWindows: WINDOWS_PER_TICK,
      onDeleted: (rows) => this.metrics.pruned.inc(rows),
    });
    if (deleted > 0)
      this.logger.info({ deleted }, 'Deleted dead letters replayed longer ago than their retention');
    return deleted;
  }
}
