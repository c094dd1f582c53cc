import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  ConsumerGroups,
  type DeadLetterV1,
  KafkaHeaders,
  SubscriberAlertKind,
  type SubscriberAlertV1,
  Topics,
  type WebhookDeliveryV1,
  WebhookRetryTiers,
} from '@ums/contracts';
import { isJsonObjectText, nextWebhookHop, shouldTombstone, webhookBatchLength } from '@ums/domain';
import {
  errorMessage,
  infrastructureFailure,
  KafkaProducer,
  PeriodicRunner,
  type RawRecord,
  retryInfrastructure,
} from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { FailureWindow } from '../subscribers/failure-window.service';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryJob, DeliverySettlement } from './delivery.record';
import type { AttemptResult } from './delivery-attempt.handler';
import { SubscriberHttpClient } from './subscriber-http.client';

/** Takes an attempt's result instead of the write-back (attempts made before their row exists). */
export type AttemptSink = (finished: FinishedAttempt) => void;

interface Queued {
  readonly job: DeliveryJob;
  readonly sink?: AttemptSink;
}

interface Lane {
  readonly queue: Queued[];
  inFlight: number;
  /** Start times of the attempts in flight, oldest first (Map keeps insertion order). */
  readonly started: Map<DeliveryJob, number>;
}

/** An attempt (or a decision not to attempt) waiting to be written back. */
export type FinishedAttempt =
  | {
      readonly job: DeliveryJob;
      readonly kind: 'attempted';
      readonly result: AttemptResult;
      /** Set on all but one delivery of a batch: one request is one failure in the window, not N. */
      readonly sharedRequest?: true;
    }
  | { readonly job: DeliveryJob; readonly kind: 'spilled' }
  | { readonly job: DeliveryJob; readonly kind: 'missed' }
  | { readonly job: DeliveryJob; readonly kind: 'orphan' };

const FLUSH_EVERY_MS = 10;
const FLUSH_AT = 500;
/** A lane whose oldest attempt in flight is older than this is slow: nobody waits for its attempts. */
const SLOW_LANE_MS = 500;
/** Results written back per round (bounds statement and produce-request sizes). */
const WRITE_BACK_MAX = 2_000;
/** Records per produce request, well under the broker's message size limit. */
const PUBLISH_SLICE = 200;
/**
 * A subscriber's last success is stamped at most this often per replica: stamped on every write-back
 * (about 100 a second under load), the one subscribers row was 4% of the database's statement time.
 */
const SUCCESS_STAMP_EVERY_MS = 1_000;
/** How often failures kept while Redis did not answer are offered to the failure window again. */
const DEFERRED_FAILURES_EVERY_MS = 1_000;

/**
 * Attempts deliveries outside the consumers' handlers: the rows are durable (PENDING, leased) before
 * the offsets move, and attempts run here with a bounded number in flight per subscriber, so one
 * slow or timing-out subscriber never holds back the partition, or the healthy subscribers behind it.
 * Results are written back in bulk: retry-tier and dead-letter publishes first (acks=all), then one
 * UPDATE per target state, then the failure window (one Redis pipeline) and the subscriber stamps.
 * The failure window fails open: when Redis does not answer, results are written all the same
 * (failed deliveries go to their retry tiers), the failures are kept, and the tombstone decision is
 * made once Redis takes them (the next write-back, or the deferred-failures tick).
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly lanes = new Map<string, Lane>();
  private queued = 0;
  private inFlight = 0;
  private finished: FinishedAttempt[] = [];
  private flushTimer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly capacityWaiters: (() => void)[] = [];
  private readonly successStamped = new Map<string, number>();
  private stopping = false;
  private readonly deferredFailures = new PeriodicRunner(
    () => this.whenFlushed(() => this.recordDeferredFailures()),
    (error: unknown) =>
      this.logger.warn({ err: error }, 'Deciding tombstones of kept failures failed; next tick retries'),
  );

  constructor(
    private readonly config: DeliveriesConfig,
    private readonly directory: SubscriberDirectory,
    private readonly client: SubscriberHttpClient,
    private readonly repository: DeliveriesRepository,
    private readonly subscribers: SubscribersRepository,
    private readonly failures: FailureWindow,
    private readonly producer: KafkaProducer,
    private readonly metrics: DeliveriesMetrics,
    private readonly logger: PinoLogger,
  ) {}

  /**
   * Queues jobs; never waits for the attempts. Callers wait on `whenCapacity()` first. With a sink,
   * every result (spills too) goes to it rather than to the write-back: the caller stores the rows.
   */
  submit(jobs: readonly DeliveryJob[], sink?: AttemptSink): void {
    // Lanes start their attempts once the whole submission is queued, so a batch subscriber's
    // requests are filled from it rather than its first deliveries going one by one.
    const touched = new Map<string, Lane>();
    for (const job of jobs) {
      let lane = this.lanes.get(job.subscriberId);
      if (lane === undefined) {
        lane = { queue: [], inFlight: 0, started: new Map() };
        this.lanes.set(job.subscriberId, lane);
      }
      if (lane.queue.length >= this.config.WEBHOOK_MAX_QUEUED_PER_SUBSCRIBER) {
        this.hand({ job, kind: 'spilled' }, sink);
        continue;
      }
      lane.queue.push(sink === undefined ? { job } : { job, sink });
      this.queued++;
      touched.set(job.subscriberId, lane);
    }
    for (const [subscriberId, lane] of touched) this.pump(subscriberId, lane);
    this.metrics.queued.set(this.queued);
  }

  /** Writes back a result that went to a sink, once its row exists (the job carries the row's id). */
  settleLater(finished: FinishedAttempt): void {
    this.finish(finished);
  }

  /**
   * Whether a subscriber's attempts are slow now (its oldest attempt in flight started more than
   * SLOW_LANE_MS ago): a timing-out subscriber must not make anyone wait for its attempts.
   */
  isSlow(subscriberId: string, now: number): boolean {
    const oldest = this.lanes.get(subscriberId)?.started.values().next();
    return oldest !== undefined && oldest.done !== true && now - oldest.value > SLOW_LANE_MS;
  }

  /** Deliveries whose rows were stored DELIVERED at once: counted, and their subscribers' success stamped. */
  async deliveredAtInsert(jobs: readonly DeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    this.metrics.deliveries.inc({ outcome: 'delivered' }, jobs.length);
    const subscribers = new Set(jobs.map((j) => j.subscriberId));
    await this.subscribers.stamp(this.successesToStamp(subscribers, Date.now()), new Map());
  }

  /** Resolves once the in-memory backlog is below its bound (backpressure for the consumers). */
  whenCapacity(): Promise<void> {
    if (this.queued < this.config.WEBHOOK_MAX_QUEUED_TOTAL) return Promise.resolve();
    return new Promise((resolve) => this.capacityWaiters.push(resolve));
  }

  onApplicationBootstrap(): void {
    this.deferredFailures.start(DEFERRED_FAILURES_EVERY_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.deferredFailures.stop();
    // Let in-flight attempts finish and be written; queued ones stay PENDING for the sweeper.
    for (const lane of this.lanes.values()) {
      this.queued -= lane.queue.length;
      lane.queue.length = 0;
    }
    const deadline = Date.now() + this.config.WEBHOOK_TIMEOUT_MS + 1_000;
    while (this.inFlight > 0 && Date.now() < deadline) await sleep(20);
    clearTimeout(this.flushTimer);
    await this.flush();
  }

  /** Starts requests while the lane has room: one delivery each, or a batch for a batch subscriber. */
  private pump(subscriberId: string, lane: Lane): void {
    const perRequest = this.directory.get(subscriberId)?.record.maxEventsPerRequest ?? 1;
    while (lane.inFlight < this.config.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIBER && lane.queue.length > 0) {
      const taken = lane.queue.splice(
        0,
        perRequest === 1 ? 1 : webhookBatchLength(lane.queue, perRequest, ({ job }) => job),
      );
      this.queued -= taken.length;
      lane.inFlight++;
      this.inFlight++;
      const startedAt = Date.now();
      for (const { job } of taken) lane.started.set(job, startedAt);
      void this.attempt(
        taken.map((entry) => entry.job),
        perRequest > 1,
      ).then((results) => {
        lane.inFlight--;
        this.inFlight--;
        taken.forEach(({ job, sink }, i) => {
          lane.started.delete(job);
          this.hand(results[i] ?? { job, kind: 'orphan' }, sink);
        });
        if (lane.inFlight === 0 && lane.queue.length === 0) this.lanes.delete(subscriberId);
        else this.pump(subscriberId, lane);
        this.releaseCapacity();
      });
    }
  }

  private releaseCapacity(): void {
    this.metrics.queued.set(this.queued);
    while (this.queued < this.config.WEBHOOK_MAX_QUEUED_TOTAL && this.capacityWaiters.length > 0) {
      this.capacityWaiters.shift()?.();
    }
  }

  private hand(finished: FinishedAttempt, sink: AttemptSink | undefined): void {
    if (sink === undefined) this.finish(finished);
    else sink(finished);
  }

  /**
   * One request for one subscriber's jobs, a result per job in their order. Never rejects: every way
   * an attempt ends is a result to write back. A batch subscriber always gets the batch body (one
   * event or many) under a `batch_` webhook-id made from the subscriber and the events' ids (the same
   * set, the same id), and dedupes by the events' ids inside it.
   */
  private async attempt(jobs: readonly DeliveryJob[], batch: boolean): Promise<FinishedAttempt[]> {
    const first = jobs[0];
    if (first === undefined) return [];
    const subscriber = this.directory.get(first.subscriberId);
    if (subscriber === undefined) return jobs.map((job) => ({ job, kind: 'orphan' }));
    if (subscriber.record.state !== 'ALIVE') return jobs.map((job) => ({ job, kind: 'missed' }));
    if (subscriber.secretUnreadable !== undefined) {
      // Nothing can be signed: no request, no failure counted against the subscriber (the fault is
      // ours); the deliveries wait on the retry tiers for the secret to open again.
      const unsigned: AttemptResult = {
        kind: 'failed',
        error: `SUBSCRIBER_SECRET_UNREADABLE: the subscriber's secret does not open (${subscriber.secretUnreadable})`,
      };
      return jobs.map((job) => ({ job, kind: 'attempted', result: unsigned, sharedRequest: true }));
    }
    const good = batch ? jobs.filter((job) => isJsonObjectText(job.payload)) : jobs;
    if (good.length < jobs.length) {
      // Cannot be put in a batch body (the topics' contract and our consumers make objects): each
      // such delivery fails without a request and goes the retry way to a dead letter; the others
      // are sent. No failure is counted against the subscriber.
      const sent = await this.attempt(good, true);
      const byJob = new Map(sent.map((finished) => [finished.job, finished]));
      const unsendable: AttemptResult = {
        kind: 'failed',
        error: 'WEBHOOK_PAYLOAD_NOT_OBJECT: the event body is not a JSON object, so it cannot be batched',
      };
      return jobs.map(
        (job): FinishedAttempt =>
          byJob.get(job) ?? { job, kind: 'attempted', result: unsendable, sharedRequest: true },
      );
    }
    const endTimer = this.metrics.latency.startTimer();
    const result = await this.client.postEvents(subscriber, jobs, batch);
    endTimer();
    return jobs.map((job, i) =>
      i === 0 ? { job, kind: 'attempted', result } : { job, kind: 'attempted', result, sharedRequest: true },
    );
  }

  private finish(finished: FinishedAttempt): void {
    this.finished.push(finished);
    if (this.finished.length >= FLUSH_AT) this.scheduleFlush(0);
    else this.scheduleFlush(FLUSH_EVERY_MS);
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

  /**
   * Writes the failures kept while Redis did not answer, then takes down the subscribers they put
   * over the threshold. Nothing to do (no Redis call) when none are kept.
   */
  private async recordDeferredFailures(): Promise<void> {
    if (this.failures.deferredCount === 0) return;
    const inWindow = await this.failures.record(new Map());
    this.metrics.failureWindowDeferred.set(this.failures.deferredCount);
    this.logger.info({ subscribers: inWindow.size }, 'Failures kept while Redis was down are counted');
    for (const subscriberId of this.overThreshold(inWindow)) {
      await this.takeDown(
        subscriberId,
        'DEAD',
        SubscriberAlertKind.Tombstoned,
        inWindow.get(subscriberId) ?? 0,
        'failures over the threshold',
      );
    }
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
      this.metrics.failureWindowErrors.inc({ code: failure?.code ?? 'UNEXPECTED' });
      this.metrics.failureWindowDeferred.set(this.failures.deferredCount);
      this.logger.warn(
        { err: error, kept: this.failures.deferredCount },
        'Failure window unavailable: results are written, tombstones are decided once Redis answers',
      );
      return new Map();
    }
  }

  /** Subscribers still ALIVE whose failures in the window are over the threshold. */
  private overThreshold(inWindow: ReadonlyMap<string, number>): Set<string> {
    const policy = {
      threshold: this.config.WEBHOOK_FAILURE_THRESHOLD,
      windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
    };
    const over = new Set<string>();
    for (const [subscriberId, count] of inWindow) {
      if (shouldTombstone(count, policy) && this.directory.get(subscriberId)?.record.state === 'ALIVE') {
        over.add(subscriberId);
      }
    }
    return over;
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

  private async writeBack(batch: readonly FinishedAttempt[]): Promise<void> {
    const now = Date.now();
    const settlements: DeliverySettlement[] = [];
    const successes = new Set<string>();
    const lastErrors = new Map<string, string>();
    const failureCounts = new Map<string, number>();
    const gone = new Map<string, string>();
    const failed: {
      job: DeliveryJob;
      error: string;
      status?: number;
      retryAfterMs?: number;
      /** Never attempted (its lane was full): it keeps its attempt and waits on the first tier. */
      spilled?: boolean;
      /** The request's result, shared by every delivery of one request. */
      request?: AttemptResult;
    }[] = [];

    for (const item of batch) {
      const { job } = item;
      if (item.kind === 'orphan') {
        settlements.push({
          deliveryId: job.deliveryId,
          state: 'DEAD_LETTERED',
          attempts: job.attempt - 1,
          error: 'SUBSCRIBER_DELETED',
        });
        this.metrics.deliveries.inc({ outcome: 'dead_lettered' });
      } else if (item.kind === 'missed') {
        settlements.push({ deliveryId: job.deliveryId, state: 'MISSED', attempts: job.attempt - 1 });
        this.metrics.deliveries.inc({ outcome: 'missed' });
      } else if (item.kind === 'spilled') {
        failed.push({
          job,
          error: 'SUBSCRIBER_BACKLOGGED: too many deliveries waiting for this subscriber',
          spilled: true,
        });
        this.metrics.deliveries.inc({ outcome: 'spilled' });
      } else if (item.result.kind === 'delivered') {
        settlements.push({
          deliveryId: job.deliveryId,
          state: 'DELIVERED',
          attempts: job.attempt,
          statusCode: item.result.status,
        });
        successes.add(job.subscriberId);
        this.metrics.deliveries.inc({ outcome: 'delivered' });
      } else if (item.result.kind === 'gone') {
        // Kept as MISSED: a resurrect after the owner fixed the endpoint replays them.
        settlements.push({
          deliveryId: job.deliveryId,
          state: 'MISSED',
          attempts: job.attempt,
          statusCode: 410,
          error: 'HTTP 410',
        });
        gone.set(job.subscriberId, 'HTTP 410 Gone');
        this.metrics.deliveries.inc({ outcome: 'gone' });
      } else {
        const { result } = item;
        failed.push({
          job,
          error: result.error,
          status: result.status,
          retryAfterMs: result.retryAfterMs,
          request: result,
        });
        if (item.sharedRequest !== true) {
          failureCounts.set(job.subscriberId, (failureCounts.get(job.subscriberId) ?? 0) + 1);
        }
        lastErrors.set(job.subscriberId, result.error);
        this.metrics.deliveries.inc({ outcome: result.refused === true ? 'refused' : 'failed' });
      }
    }

    const inWindow = await this.countFailures(failureCounts, now);
    const tombstoned = this.overThreshold(inWindow);

    const tierRecords = new Map<string, RawRecord[]>();
    const deadLetters: RawRecord[] = [];
    // One jitter draw per failed request: its deliveries (with the same attempt count) come due
    // together, so its retry forms the same batch, under the same webhook-id, unless others join.
    const draws = new Map<unknown, number>();
    for (const { job, error, status, retryAfterMs, spilled, request } of failed) {
      // Attempts made so far: a spilled delivery was not attempted this time.
      const made = spilled === true ? job.attempt - 1 : job.attempt;
      if (
        tombstoned.has(job.subscriberId) ||
        this.directory.get(job.subscriberId)?.record.state !== 'ALIVE'
      ) {
        settlements.push({
          deliveryId: job.deliveryId,
          state: 'MISSED',
          attempts: made,
          statusCode: status,
          error,
        });
        continue;
      }
      const hop = nextWebhookHop(
        this.config.WEBHOOK_RETRY_DELAYS_MS,
        // A spill waits on the first tier every time: a backlog is not the subscriber failing.
        spilled === true ? 1 : job.attempt,
        now,
        this.config.WEBHOOK_RETRY_JITTER,
        retryAfterMs,
        () => drawFor(draws, request ?? job),
      );
      const value: WebhookDeliveryV1 = {
        deliveryId: job.deliveryId,
        subscriberId: job.subscriberId,
        eventId: job.eventId,
        eventType: job.eventType,
        payload: job.payload,
        attempt: made + 1,
        firstAttemptAt: job.firstAttemptAt,
      };
      if (hop.kind === 'retry') {
        const tier = WebhookRetryTiers[hop.tier] ?? WebhookRetryTiers[WebhookRetryTiers.length - 1];
        if (tier === undefined) throw new Error('No webhook retry tiers');
        const list = tierRecords.get(tier.name) ?? [];
        list.push({
          key: job.subscriberId,
          value: JSON.stringify(value),
          headers: {
            [KafkaHeaders.dueAt]: String(hop.dueAt),
            [KafkaHeaders.attempt]: String(made),
            [KafkaHeaders.originTopic]: job.source?.topic ?? Topics.webhookDeliveries.name,
            [KafkaHeaders.lastError]: error.slice(0, 1024),
          },
        });
        tierRecords.set(tier.name, list);
        this.metrics.retries.inc({ tier: tier.name });
        settlements.push({
          deliveryId: job.deliveryId,
          state: 'RETRYING',
          attempts: made,
          statusCode: status,
          error,
          nextAttemptAt: new Date(hop.dueAt),
        });
      } else {
        const letter: DeadLetterV1 = {
          sourceTopic: job.source?.topic ?? Topics.webhookDeliveries.name,
          sourcePartition: job.source?.partition ?? 0,
          sourceOffset: job.source?.offset ?? 'n/a',
          // The group whose attempts were used up (it reads the deliveries topic and its tiers).
          consumerGroup: ConsumerGroups.dispatcherDeliveries,
          key: job.subscriberId,
          value: JSON.stringify(value),
          valueEncoding: 'utf8',
          headers: { [KafkaHeaders.attempt]: String(job.attempt) },
          errorCode: 'RETRIES_EXHAUSTED',
          reason: error.slice(0, 8192),
          attempts: job.attempt,
          failedAt: new Date(now).toISOString(),
        };
        deadLetters.push({ key: Topics.deadLetters.keyOf(letter), value: JSON.stringify(letter) });
        settlements.push({
          deliveryId: job.deliveryId,
          state: 'DEAD_LETTERED',
          attempts: job.attempt,
          statusCode: status,
          error,
        });
        this.metrics.deliveries.inc({ outcome: 'dead_lettered' });
      }
    }

    // Kafka first: a row says RETRYING or DEAD_LETTERED only once its message is on the topic.
    const publishes: Promise<void>[] = [];
    for (const [topic, records] of [...tierRecords, [Topics.deadLetters.name, deadLetters] as const]) {
      for (let i = 0; i < records.length; i += PUBLISH_SLICE) {
        publishes.push(this.producer.publishRaw(topic, records.slice(i, i + PUBLISH_SLICE)));
      }
    }
    await Promise.all(publishes);
    await this.settleRetrying(settlements);
    await this.subscribers.stamp(this.successesToStamp(successes, now), lastErrors);
    for (const [subscriberId, reason] of gone) {
      await this.takeDown(
        subscriberId,
        'DISABLED',
        SubscriberAlertKind.Disabled,
        inWindow.get(subscriberId) ?? 0,
        reason,
      );
    }
    for (const subscriberId of tombstoned) {
      await this.takeDown(
        subscriberId,
        'DEAD',
        SubscriberAlertKind.Tombstoned,
        inWindow.get(subscriberId) ?? 0,
        lastErrors.get(subscriberId) ?? 'failures over the threshold',
      );
    }
  }

  /**
   * Writes the results, again while MySQL is unavailable (for half the pending lease at most; not
   * during a shutdown): a write-back dropped here leaves delivered rows PENDING, and the sweeper
   * would send them again. Its UPDATEs are idempotent, and the Kafka publishes before it are not
   * repeated.
   */
  private settleRetrying(settlements: readonly DeliverySettlement[]): Promise<void> {
    return retryInfrastructure(() => this.repository.settle(settlements), {
      forMs: this.config.WEBHOOK_PENDING_LEASE_MS / 2,
      stopped: () => this.stopping,
      onRetry: (error, attempt, delayMs) =>
        this.logger.warn(
          { err: error, attempt, delayMs, count: settlements.length },
          'Writing delivery results failed (database unavailable); retrying',
        ),
    });
  }

  private successesToStamp(successes: ReadonlySet<string>, now: number): string[] {
    const due: string[] = [];
    for (const subscriberId of successes) {
      if (now - (this.successStamped.get(subscriberId) ?? 0) < SUCCESS_STAMP_EVERY_MS) continue;
      this.successStamped.set(subscriberId, now);
      due.push(subscriberId);
    }
    // Bounded: stamps older than the interval are only a lower bound on the next one.
    if (this.successStamped.size > 10_000) {
      for (const [id, at] of this.successStamped)
        if (now - at >= SUCCESS_STAMP_EVERY_MS) this.successStamped.delete(id);
    }
    return due;
  }

  /** Tombstones (DEAD) or disables (410) a subscriber once: alert event, log, directory refreshed. */
  private async takeDown(
    subscriberId: string,
    to: 'DEAD' | 'DISABLED',
    kind: SubscriberAlertKind,
    failuresInWindow: number,
    lastError: string,
  ): Promise<void> {
    const known = this.directory.get(subscriberId);
    if (known === undefined) return;
    const changed = await this.subscribers.transition({
      id: subscriberId,
      tenant: null,
      from: ['ALIVE', 'REPLAYING'],
      to,
      lastError,
    });
    if (!changed) return;
    await this.repository.keepOwed(subscriberId);
    const alert: SubscriberAlertV1 = {
      subscriberId,
      tenantId: known.record.tenantId,
      kind,
      failuresInWindow,
      windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
      lastError: lastError.slice(0, 1024),
      at: new Date().toISOString(),
    };
    await this.producer.publish(Topics.subscriberAlerts, [alert]);
    this.logger.warn(
      {
        subscriberId,
        tenantId: known.record.tenantId,
        kind,
        failuresInWindow,
        lastError: errorMessage(lastError),
      },
      to === 'DEAD'
        ? 'Subscriber tombstoned: no more attempts until it is resurrected'
        : 'Subscriber disabled (410 Gone)',
    );
    await this.directory.reload();
  }
}

/** The jitter draw of one request (or one delivery), made once. */
function drawFor(draws: Map<unknown, number>, key: unknown): number {
  let draw = draws.get(key);
  if (draw === undefined) {
    draw = Math.random();
    draws.set(key, draw);
  }
  return draw;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
