import { Injectable, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { RunRequestReason } from '@ums/contracts';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { RunRequestPublisher } from '../runs/run-request.publisher';
import { SweeperConfig } from './sweeper.config';
import { SweeperMetrics } from './sweeper.metrics';
import { SweeperRepository } from './sweeper.repository';

const SWEEP_BATCH = 100;
const AGE_METRIC_LIMIT = 1_000;

/**
 * Heals and finishes runs: a run whose checkpoint went stale (its expander died or froze) is
 * re-requested at a new epoch, which fences the old expander out; after RUN_MAX_ATTEMPTS it is
 * FAILED. Expanded runs with nothing left to send are completed.
 */
@Injectable()
export class SweeperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: SweeperRepository,
    private readonly requests: RunRequestPublisher,
    private readonly config: SweeperConfig,
    private readonly metrics: SweeperMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(SweeperService.name);
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.ticking;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        if (!this.stopped) this.schedule();
      });
    }, this.config.SWEEPER_TICK_MS);
  }

  async tick(): Promise<void> {
    try {
      while ((await this.sweepStale()) === SWEEP_BATCH);
      const completed = await this.repository.completeFinishedRuns(SWEEP_BATCH);
      if (completed.length > 0) {
        this.metrics.completed.inc(completed.length);
        this.logger.info({ runs: completed }, 'Runs completed');
      }
      await this.recordCheckpointAges();
    } catch (error: unknown) {
      this.metrics.tickErrors.inc();
      this.logger.error({ err: error }, 'Sweep failed; retrying next tick');
    }
  }

  async sweepStale(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const stale = await this.repository.lockStale(manager, this.config.CHECKPOINT_DEADLINE_MS, SWEEP_BATCH);
      const retry = stale.filter((run) => run.attempts < this.config.RUN_MAX_ATTEMPTS);
      for (const run of stale.filter((r) => r.attempts >= this.config.RUN_MAX_ATTEMPTS)) {
        const reason = `checkpoint stale since ${run.checkpointAt.toISOString()} after ${run.attempts} retries`;
        await this.repository.fail(manager, run, reason);
        this.metrics.failures.inc();
        this.logger.error(
          { runId: run.runId, campaignId: run.campaignId, reason },
          'Run FAILED: stale checkpoint',
        );
      }
      await this.repository.retry(
        manager,
        retry.map((run) => run.runId),
      );
      // Published before commit, as for due runs: the new epoch only lands together with its request.
      await this.requests.publish(
        retry.map((run) => ({ ...run, epoch: run.epoch + 1 })),
        RunRequestReason.StaleCheckpoint,
      );
      for (const run of retry) {
        this.metrics.retries.inc();
        this.logger.warn(
          { runId: run.runId, campaignId: run.campaignId, epoch: run.epoch + 1, attempt: run.attempts + 1 },
          'Stale checkpoint: run re-requested at a new epoch',
        );
      }
      return stale.length;
    });
  }

  private async recordCheckpointAges(): Promise<void> {
    const ages = await this.repository.checkpointAges(AGE_METRIC_LIMIT);
    this.metrics.checkpointAge.reset();
    for (const age of ages) {
      this.metrics.checkpointAge.set({ run_id: age.runId, campaign_id: age.campaignId }, age.ageSeconds);
    }
    this.metrics.oldestCheckpointAge.set(ages[0]?.ageSeconds ?? 0);
  }
}
