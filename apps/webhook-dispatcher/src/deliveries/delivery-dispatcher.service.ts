import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { DeliveryErrorCode, describeFailure, SubscriberErrorCode } from '@ums/contracts';
import { type FinishedWebhookAttempt, isJsonObjectText, webhookBatchLength } from '@ums/domain';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import type { DeliveryJob } from './delivery.record';
import type { AttemptResult } from './delivery-attempt.handler';
import { DeliveryWriteBack } from './delivery-write-back.service';
import { SubscriberHttpClient } from './subscriber-http.client';

/** Takes an attempt's result instead of the write-back (attempts made before their row exists). */
export type AttemptSink = (finished: FinishedAttempt) => void;

/** An attempt (or a decision not to attempt) waiting to be written back. */
export type FinishedAttempt = FinishedWebhookAttempt;

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

/** A lane whose oldest attempt in flight is older than this is slow: nobody waits for its attempts. */
const SLOW_LANE_MS = 500;

/**
 * Attempts deliveries outside the consumers' handlers: the rows are durable (PENDING, leased) before
 * the offsets move, and attempts run here with a bounded number in flight per subscriber, so one
 * slow or timing-out subscriber never holds back the partition, or the healthy subscribers behind it.
 * Results are written back in bulk by DeliveryWriteBack.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationShutdown {
  private readonly lanes = new Map<string, Lane>();
  private queued = 0;
  private inFlight = 0;
  private readonly capacityWaiters: (() => void)[] = [];

  constructor(
    private readonly config: DeliveriesConfig,
    private readonly directory: SubscriberDirectory,
    private readonly client: SubscriberHttpClient,
    private readonly writeBack: DeliveryWriteBack,
    private readonly metrics: DeliveriesMetrics,
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
    this.writeBack.add(finished);
  }

  /**
   * Whether a subscriber's attempts are slow now (its oldest attempt in flight started more than
   * SLOW_LANE_MS ago): a timing-out subscriber must not make anyone wait for its attempts.
   */
  isSlow(subscriberId: string, now: number): boolean {
    const oldest = this.lanes.get(subscriberId)?.started.values().next();
    return oldest !== undefined && oldest.done !== true && now - oldest.value > SLOW_LANE_MS;
  }

  /**
   * Deliveries answered 2xx before their chunk's rows were written (they get none): counted, and their
   * subscribers' success stamped.
   */
  deliveredWithoutRow(jobs: readonly DeliveryJob[]): Promise<void> {
    return this.writeBack.deliveredWithoutRow(jobs);
  }

  /** Resolves once the in-memory backlog is below its bound (backpressure for the consumers). */
  whenCapacity(): Promise<void> {
    if (this.queued < this.config.WEBHOOK_MAX_QUEUED_TOTAL) return Promise.resolve();
    return new Promise((resolve) => this.capacityWaiters.push(resolve));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.writeBack.stop();
    // Let in-flight attempts finish and be written; queued ones stay PENDING for the sweeper.
    for (const lane of this.lanes.values()) {
      this.queued -= lane.queue.length;
      lane.queue.length = 0;
    }
    const deadline = Date.now() + this.config.WEBHOOK_TIMEOUT_MS + 1_000;
    while (this.inFlight > 0 && Date.now() < deadline) await sleep(20);
    await this.writeBack.drain();
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
    if (sink === undefined) this.writeBack.add(finished);
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
        error: describeFailure(
          SubscriberErrorCode.SecretUnreadable,
          `the subscriber's secret does not open (${subscriber.secretUnreadable})`,
        ),
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
        error: describeFailure(
          DeliveryErrorCode.PayloadNotObject,
          'the event body is not a JSON object, so it cannot be batched',
        ),
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
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
