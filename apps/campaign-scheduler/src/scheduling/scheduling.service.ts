import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { RunRequestReason } from '@ums/contracts';
import { planCronFire } from '@ums/domain';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { RunRequestPublisher } from '../runs/run-request.publisher';
import { RunsRepository } from '../runs/runs.repository';
import { SchedulingConfig } from './scheduling.config';
import { SchedulingMetrics } from './scheduling.metrics';
import { SchedulingRepository } from './scheduling.repository';

/**
 * Finds due work on every tick: cron fires become runs (one per campaign and fire time, by a
 * unique key), and due runs are published to the expanders, oldest first. Safe with any number
 * of replicas: each transaction locks its rows with SKIP LOCKED.
 */
@Injectable()
export class SchedulingService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: SchedulingRepository,
    private readonly runs: RunsRepository,
    private readonly requests: RunRequestPublisher,
    private readonly config: SchedulingConfig,
    private readonly metrics: SchedulingMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(SchedulingService.name);
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.ticking;
  }

  /** Runs a tick now (after a campaign starts) instead of waiting for the timer. */
  nudge(): void {
    if (this.stopped || this.ticking !== undefined) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        if (!this.stopped) this.schedule(this.config.SCHEDULER_TICK_MS);
      });
    }, delayMs);
  }

  async tick(): Promise<void> {
    try {
      while ((await this.fireCrons()) === this.config.SCHEDULER_BATCH);
    } catch (error: unknown) {
      this.metrics.tickErrors.inc({ task: 'cron' });
      this.logger.error({ err: error }, 'Firing cron campaigns failed; retrying next tick');
    }
    try {
      while ((await this.publishDueRuns()) === this.config.SCHEDULER_BATCH);
    } catch (error: unknown) {
      this.metrics.tickErrors.inc({ task: 'due-runs' });
      this.logger.error({ err: error }, 'Publishing due runs failed; retrying next tick');
    }
  }

  /** Creates the run of each due cron fire and moves the campaign's next fire time on. */
  async fireCrons(): Promise<number> {
    const now = await this.runs.dbNow();
    // Counted after the commit: a rolled-back fire is fired again next tick and must count once.
    const fired = { created: 0, missed: 0 };
    const due = await this.dataSource.transaction(async (manager) => {
      const locked = await this.repository.lockDueCrons(manager, now, this.config.SCHEDULER_BATCH);
      for (const campaign of locked) {
        const plan = planCronFire(campaign.cron, campaign.timeZone, campaign.nextFireAt, now);
        if (plan === undefined) continue;
        const run = await this.runs.createOnce(manager, campaign.campaignId, plan.fireAt);
        await this.repository.setNextFire(manager, campaign.campaignId, plan.nextFireAt);
        if (run.created) fired.created += 1;
        fired.missed += plan.missed;
        this.logger.info(
          { campaignId: campaign.campaignId, runId: run.id, fireAt: plan.fireAt, missed: plan.missed },
          run.created ? 'Cron fired: run created' : 'Cron fire already had its run',
        );
      }
      return locked.length;
    });
    if (fired.created > 0) this.metrics.cronFires.inc(fired.created);
    if (fired.missed > 0) this.metrics.missedFires.inc(fired.missed);
    return due;
  }

  /** PENDING runs whose time came -> SCHEDULED at a new epoch, and their requests published. */
  async publishDueRuns(): Promise<number> {
    const scheduled = await this.dataSource.transaction(async (manager) => {
      const due = await this.repository.lockDueRuns(manager, this.config.SCHEDULER_BATCH);
      if (due.length === 0) return 0;
      await this.repository.markScheduled(
        manager,
        due.map((run) => run.runId),
      );
      // Published before commit: a failed publish rolls back; a failed commit leaves requests
      // naming an epoch that never landed, which expanders refuse.
      await this.requests.publish(
        due.map((run) => ({ ...run, epoch: run.epoch + 1 })),
        RunRequestReason.Scheduled,
      );
      this.logger.info({ runs: due.map((run) => run.runId) }, 'Due runs scheduled');
      return due.length;
    });
    if (scheduled > 0) this.metrics.runsScheduled.inc(scheduled);
    return scheduled;
  }
}
