import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicRunner } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';

/** Rows read per window; each window deletes by primary key in its own short statement. */
const WINDOW = 1_000;
/** Windows per tick: a backlog (a first start on an old table) is worked off over several ticks. */
const WINDOWS_PER_TICK = 50;

/**
 * Deletes DELIVERED rows past WEBHOOK_DELIVERED_RETENTION_MS, oldest first: without it `deliveries`
 * grows by every event relayed, with its payload. A pass walks from the oldest DELIVERED row and ends
 * at the first young one; a pass cut short by WINDOWS_PER_TICK goes on from there next tick. Replicas
 * may prune side by side: a DELETE by id of a row already gone changes nothing.
 */
@Injectable()
export class DeliveryRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.prune(),
    (error: unknown) => this.logger.warn({ err: error }, 'Delivery retention pass failed; next tick retries'),
  );
  private cursor = '0';

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly config: DeliveriesConfig,
    private readonly metrics: DeliveriesMetrics,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WEBHOOK_DELIVERED_RETENTION_MS === 0) return;
    this.runner.start(this.config.WEBHOOK_RETENTION_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** One tick of the pass; returns the rows deleted. */
  async prune(): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < WINDOWS_PER_TICK; i++) {
      const window = await this.repository.pruneDeliveredWindow(
        this.cursor,
        this.config.WEBHOOK_DELIVERED_RETENTION_MS,
        WINDOW,
      );
      // Counted per window, as soon as its DELETE returns: a long pass shows its progress.
      if (window.deleted > 0) this.metrics.pruned.inc(window.deleted);
      deleted += window.deleted;
      this.cursor = window.passDone ? '0' : window.lastId;
      if (window.passDone) break;
    }
    if (deleted > 0) this.logger.info({ deleted }, 'Deleted DELIVERED rows past their retention');
    return deleted;
  }
}
