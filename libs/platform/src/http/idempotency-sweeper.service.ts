import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { PeriodicRunner } from '../timing/periodic.runner';
import { pruneInWindows } from '../timing/windowed-prune';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

/** How often expired keys are deleted. */
const SWEEP_EVERY_MS = 60_000;
/** Rows per DELETE: short statements, short locks. */
const WINDOW = 1_000;
/** Windows per tick: a backlog is worked off over several ticks. */
const WINDOWS_PER_TICK = 50;

/**
 * Deletes idempotency keys past their expiry, every minute on each replica of each service with an
 * idempotent route, in windows of 1,000 rows by the expiry index. Replicas may sweep side by side: a
 * row already deleted is simply not found.
 */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.sweep(),
    (error: unknown) => this.logger.warn({ err: error }, 'Idempotency key sweep failed; next tick retries'),
  );

  constructor(
    private readonly repository: IdempotencyKeysRepository,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(IdempotencySweeper.name);
  }

  onApplicationBootstrap(): void {
    this.runner.start(SWEEP_EVERY_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** Deletes expired keys window by window; returns how many. */
  async sweep(): Promise<number> {
    const deleted = await pruneInWindows((window) => this.repository.pruneExpired(window), {
      window: WINDOW,
      maxWindows: WINDOWS_PER_TICK,
      onDeleted: () => undefined,
    });
    if (deleted > 0) this.logger.debug({ deleted }, 'Deleted expired idempotency keys');
    return deleted;
  }
}
