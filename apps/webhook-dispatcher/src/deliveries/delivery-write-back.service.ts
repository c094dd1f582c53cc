import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpErrorCode } from '@ums/contracts';
import {
  type FinishedWebhookAttempt,
  planWebhookWriteBack,
  type TombstonePolicy,
  type WebhookWriteBackPlan,
  webhookFailureCounts,
  webhookTombstones,
} from '@ums/domain';
import { infrastructureFailure, PeriodicRunner } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { FailureWindow } from '../subscribers/failure-window.service';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import type { DeliveryJob } from './delivery.record';
import { DeliveryResultWriter } from './delivery-result.writer';
import { WEBHOOK_RETRY_JITTER_RATIO } from './delivery-tuning.constants';

const FLUSH_EVERY_MS = 10;
const FLUSH_AT = 500;
/** Results written back per round (bounds statement and produce-request sizes). */
const WRITE_BACK_MAX = 2_000;
/** How often failures kept while Redis did not answer are offered to the failure window again. */
const DEFERRED_FAILURES_EVERY_MS = 1_000;

/**
 * Writes attempt results back in bulk, one write-back at a time: the batch's failures go to the
 * failure window (one Redis pipeline), the write-back is planned (planWebhookWriteBack) and the
 * writer carries it out: retry-tier and dead-letter publishes first (acks=all), then one UPDATE per
 * target state, then the subscriber stamps and takedowns.
 * The failure window fails open: when Redis does not answer, results are written all the same
 * (failed deliveries go to their retry tiers), the failures are kept, and the tombstone decision is
 * made once Redis takes them (the next write-back, or the deferred-failures tick).
 */
@Injectable()
export class DeliveryWriteBack implements OnApplicationBootstrap {
  private finished: FinishedWebhookAttempt[] = [];
  private flushTimer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly deferredFailures = new PeriodicRunner(
    () => this.whenFlushed(() => this.recordDeferredFailures()),
    (error: unknown) =>
      this.logger.warn({ err: error }, 'Deciding tombstones of kept failures failed; next tick retries'),
  );

  constructor(
    private readonly config: DeliveriesConfig,
    private readonly directory: SubscriberDirectory,
    private readonly failures: FailureWindow,
    private readonly writer: DeliveryResultWriter,
    private readonly metrics: DeliveriesMetrics,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.deferredFailures.start(DEFERRED_FAILURES_EVERY_MS);
  }

  /** Queues a result for the next write-back. */
  add(finished: FinishedWebhookAttempt): void {
    this.finished.push(finished);
    if (this.finished.length >= FLUSH_AT) this.scheduleFlush(0);
    else this.scheduleFlush(FLUSH_EVERY_MS);
  }

  /**
   * Deliveries answered 2xx before their chunk's rows were written (they get none): counted, and their
   * subscribers' success stamped.
   */
  async deliveredWithoutRow(jobs: readonly DeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    this.metrics.deliveries.inc({ outcome: 'delivered' }, jobs.length);
    await this.writer.stamp(new Set(jobs.map((j) => j.subscriberId)), new Map(), Date.now());
  }

  /** First step of a shutdown: no more deferred-failure ticks, and no database retries from here on. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.deferredFailures.stop();
  }

  /** Last step of a shutdown, once no attempt is in flight: writes back every result still queued. */
  async drain(): Promise<void> {
    clearTimeout(this.flushTimer);
    await this.flush();
  }

  private scheduleFlush(delayMs: number): void {
    if (this.flushTimer !== undefined && delayMs > 0) return;
    clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.whenFlushed(() => this.flush());
    }, delayMs);
  }

  /** Runs `task` after the write-backs queued so far, one at a time. Rejects with the task's error. */
  private whenFlushed(task: () => Promise<void>): Promise<void> {
    const run = this.flushing.then(task);
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async flush(): Promise<void> {
    while (this.finished.length > 0) {
      const batch = this.finished.splice(0, WRITE_BACK_MAX);
      try {
        await this.writeBack(batch);
      } catch (error: unknown) {
        // The rows stay PENDING under their lease: the sweeper attempts them again, so nothing is lost.
        this.logger.error(
          { err: error, count: batch.length },
          'Writing delivery results failed; the sweeper retries them',
        );
      }
    }
  }

  private async writeBack(batch: readonly FinishedWebhookAttempt[]): Promise<void> {
    const now = Date.now();
    const inWindow = await this.countFailures(webhookFailureCounts(batch), now);
    const plan = planWebhookWriteBack({
      batch,
      inWindow,
      isAlive: (subscriberId) => this.isAlive(subscriberId),
      policy: this.policy(),
      retryDelaysMs: this.config.WEBHOOK_RETRY_DELAYS_MS,
      jitterRatio: WEBHOOK_RETRY_JITTER_RATIO,
      now,
      random: Math.random,
    });
    this.count(plan);
    await this.writer.execute(plan, { now, stopped: () => this.stopping });
  }

  private count(plan: WebhookWriteBackPlan): void {
    for (const [outcome, n] of plan.outcomes) this.metrics.deliveries.inc({ outcome }, n);
    for (const [tier, copies] of plan.retries) this.metrics.retries.inc({ tier }, copies.length);
  }

  /**
   * The failure window's counts after this write-back's failures, or none when Redis does not
   * answer: the failures are kept (FailureWindow), no one is tombstoned now, and the results are
   * written all the same.
   */
  private async countFailures(
    failureCounts: ReadonlyMap<string, number>,
    now: number,
  ): Promise<Map<string, number>> {
    try {
      const inWindow = await this.failures.record(failureCounts, now);
      this.metrics.failureWindowDeferred.set(0);
      return inWindow;
    } catch (error: unknown) {
      const failure = infrastructureFailure(error);
      this.metrics.failureWindowErrors.inc({ code: failure?.code ?? HttpErrorCode.Unexpected });
      this.metrics.failureWindowDeferred.set(this.failures.deferredCount);
      this.logger.warn(
        { err: error, kept: this.failures.deferredCount },
        'Failure window unavailable: results are written, tombstones are decided once Redis answers',
      );
      return new Map();
    }
  }

  /**
   * Writes the failures kept while Redis did not answer, then takes down the subscribers they put
   * over the threshold. Nothing to do (no Redis call) when none are kept.
   */
  private async recordDeferredFailures(): Promise<void> {
    if (this.failures.deferredCount === 0) return;
    const inWindow = await this.failures.record(new Map());
    this.metrics.failureWindowDeferred.set(this.failures.deferredCount);
    this.logger.info({ subscribers: inWindow.size }, 'Failures kept while Redis was down are counted');
    await this.writer.takeDown(webhookTombstones(inWindow, this.policy(), (id) => this.isAlive(id)));
  }

  private isAlive(subscriberId: string): boolean {
    return this.directory.get(subscriberId)?.record.state === 'ALIVE';
  }

  private policy(): TombstonePolicy {
    return {
      threshold: this.config.WEBHOOK_FAILURE_THRESHOLD,
      windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
    };
  }
}
