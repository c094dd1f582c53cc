import {
  ConsumerGroups,
  type DeadLetterCauseCode,
  describeFailure,
  KafkaHeaders,
  type RetryForward,
  MessageHandlingErrorCode,
  SubscriberErrorCode,
  Topics,
  type WebhookDeliveryV1,
  WebhookRetryTiers,
} from '@ums/contracts';
import type {
  FinishedWebhookAttempt,
  WebhookAttemptResult,
  WebhookDeliveryJob,
  WebhookJobSource,
  WebhookOutcomeLabel,
  WebhookSettlement,
} from './webhook-attempt';
import { nextWebhookHop } from './webhook-retry-schedule';
import { shouldTombstone, type TombstonePolicy } from './tombstone-policy';

/**
 * The topic every WebhookDeliveryV1 belongs to, whatever the delivery was read from (a status or
 * inbound event, a retry tier): its retry-tier copies and dead letters name it as their origin, so a
 * replayed dead letter goes back to the deliveries topic.
 */
export const WEBHOOK_DELIVERY_ORIGIN = Topics.webhookDeliveries.name;

/** A failed delivery's copy on a retry tier. */
export interface WebhookRetryCopy {
  /** The record's key: the subscriber. */
  readonly key: string;
  readonly value: WebhookDeliveryV1;
  /** What the copy's headers say: when it is due, the attempts made, the topic it belongs to, why. */
  readonly forward: RetryForward;
}

/** A delivery out of retries, to be wrapped as a dead letter. */
export interface WebhookDeadLetter {
  /** Where the delivery was read from: the dead letter's coordinates. */
  readonly source: WebhookJobSource;
  readonly key: string;
  readonly value: WebhookDeliveryV1;
  /** The attempts made and the topic a replay publishes to (KafkaHeaders.originTopic). */
  readonly headers: Readonly<Record<string, string>>;
  readonly cause: {
    readonly consumerGroup: string;
    readonly errorCode: DeadLetterCauseCode;
    readonly reason: string;
    readonly attempts: number;
  };
}

/** A subscriber to take out of delivery: DEAD (failures over the threshold) or DISABLED (410 Gone). */
export interface WebhookTakedown {
  readonly subscriberId: string;
  readonly to: 'DEAD' | 'DISABLED';
  readonly failuresInWindow: number;
  readonly lastError: string;
}

/** What a write-back of attempt results consists of, in the order it is carried out. */
export interface WebhookWriteBackPlan {
  /** Copies to publish, by retry-tier topic, in batch order. */
  readonly retries: ReadonlyMap<string, readonly WebhookRetryCopy[]>;
  readonly deadLetters: readonly WebhookDeadLetter[];
  /** Row updates, written once the copies and dead letters are on their topics. */
  readonly settlements: readonly WebhookSettlement[];
  /** Subscribers that took a delivery (their success stamp). */
  readonly successes: ReadonlySet<string>;
  /** The last error of each subscriber a delivery failed on (their failure stamp). */
  readonly lastErrors: ReadonlyMap<string, string>;
  /** Disabled (410) first, then tombstoned. */
  readonly takedowns: readonly WebhookTakedown[];
  /** Deliveries by outcome, for the metrics. */
  readonly outcomes: ReadonlyMap<WebhookOutcomeLabel, number>;
}

export interface WebhookWriteBackInput {
  readonly batch: readonly FinishedWebhookAttempt[];
  /**
   * Each subscriber's failures in the window once this batch's are counted (webhookFailureCounts);
   * empty when the window did not answer: then no one is tombstoned by this batch.
   */
  readonly inWindow: ReadonlyMap<string, number>;
  /** Whether a subscriber is ALIVE now (its failed deliveries are retried, not kept as MISSED). */
  readonly isAlive: (subscriberId: string) => boolean;
  readonly policy: TombstonePolicy;
  /** One delay per retry tier (WebhookRetryTiers). */
  readonly retryDelaysMs: readonly number[];
  readonly jitterRatio: number;
  readonly now: number;
  /** Jitter draws in [0, 1): one per failed request, shared by its deliveries. */
  readonly random: () => number;
}

/** A delivery that failed (or was not attempted) and is retried, dead-lettered or kept. */
interface FailedDelivery {
  readonly job: WebhookDeliveryJob;
  readonly error: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** Never attempted (its lane was full): it keeps its attempt and waits on the first tier. */
  readonly spilled?: boolean;
  /** The request's result, shared by every delivery of one request. */
  readonly request?: WebhookAttemptResult;
}

/** A plan under construction. */
interface Draft {
  readonly retries: Map<string, WebhookRetryCopy[]>;
  readonly deadLetters: WebhookDeadLetter[];
  readonly settlements: WebhookSettlement[];
  readonly successes: Set<string>;
  readonly lastErrors: Map<string, string>;
  /** Subscribers that answered 410, with the reason they are disabled. */
  readonly gone: Map<string, string>;
  readonly failed: FailedDelivery[];
  readonly outcomes: Map<WebhookOutcomeLabel, number>;
}

const SPILLED_ERROR = describeFailure(
  SubscriberErrorCode.Backlogged,
  'too many deliveries waiting for this subscriber',
);

/**
 * Failures per subscriber that a batch adds to the failure window: one per failed request, so a
 * batch request that failed counts once however many deliveries it carried.
 */
export function webhookFailureCounts(batch: readonly FinishedWebhookAttempt[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of batch) {
    if (item.kind !== 'attempted' || item.result.kind !== 'failed' || item.sharedRequest === true) continue;
    counts.set(item.job.subscriberId, (counts.get(item.job.subscriberId) ?? 0) + 1);
  }
  return counts;
}

/** Subscribers still ALIVE whose failures in the window are over the threshold, to be tombstoned. */
export function webhookTombstones(
  inWindow: ReadonlyMap<string, number>,
  policy: TombstonePolicy,
  isAlive: (subscriberId: string) => boolean,
  lastErrors: ReadonlyMap<string, string> = new Map(),
): WebhookTakedown[] {
  const takedowns: WebhookTakedown[] = [];
  for (const [subscriberId, count] of inWindow) {
    if (!shouldTombstone(count, policy) || !isAlive(subscriberId)) continue;
    takedowns.push({
      subscriberId,
      to: 'DEAD',
      failuresInWindow: count,
      lastError: lastErrors.get(subscriberId) ?? 'failures over the threshold',
    });
  }
  return takedowns;
}

/**
 * The write-back of a batch of results: delivered and gone rows settled, deliveries of missing or
 * dead subscribers settled as they are, failed ones routed to their retry tier (or, out of retries,
 * to a dead letter), or kept as MISSED when their subscriber is not ALIVE or is tombstoned by this
 * batch; the subscribers' stamps, and who is disabled (410) or tombstoned.
 */
export function planWebhookWriteBack(input: WebhookWriteBackInput): WebhookWriteBackPlan {
  const draft: Draft = {
    retries: new Map(),
    deadLetters: [],
    settlements: [],
    successes: new Set(),
    lastErrors: new Map(),
    gone: new Map(),
    failed: [],
    outcomes: new Map(),
  };
  for (const item of input.batch) {
    if (item.kind === 'attempted') sortAttempted(item.job, item.result, draft);
    else sortUnattempted(item.job, item.kind, draft);
  }
  const tombstones = webhookTombstones(input.inWindow, input.policy, input.isAlive, draft.lastErrors);
  const tombstoned = new Set(tombstones.map((t) => t.subscriberId));
  // One jitter draw per failed request: its deliveries (with the same attempt count) come due
  // together, so its retry forms the same batch, under the same webhook-id, unless others join.
  const draws = new Map<unknown, number>();
  for (const failure of draft.failed) {
    const subscriberId = failure.job.subscriberId;
    if (tombstoned.has(subscriberId) || !input.isAlive(subscriberId)) keep(failure, draft);
    else route(failure, input, () => drawFor(draws, failure.request ?? failure.job, input.random), draft);
  }
  const disabled = [...draft.gone].map(([subscriberId, reason]): WebhookTakedown => ({
    subscriberId,
    to: 'DISABLED',
    failuresInWindow: input.inWindow.get(subscriberId) ?? 0,
    lastError: reason,
  }));
  return {
    retries: draft.retries,
    deadLetters: draft.deadLetters,
    settlements: draft.settlements,
    successes: draft.successes,
    lastErrors: draft.lastErrors,
    takedowns: [...disabled, ...tombstones],
    outcomes: draft.outcomes,
  };
}

function sortUnattempted(job: WebhookDeliveryJob, kind: 'orphan' | 'missed' | 'spilled', draft: Draft): void {
  switch (kind) {
    case 'orphan':
      draft.settlements.push({
        deliveryId: job.deliveryId,
        state: 'DEAD_LETTERED',
        attempts: job.attempt - 1,
        error: SubscriberErrorCode.Deleted,
      });
      count(draft, 'dead_lettered');
      return;
    case 'missed':
      draft.settlements.push({ deliveryId: job.deliveryId, state: 'MISSED', attempts: job.attempt - 1 });
      count(draft, 'missed');
      return;
    case 'spilled':
      draft.failed.push({ job, error: SPILLED_ERROR, spilled: true });
      count(draft, 'spilled');
      return;
  }
}

function sortAttempted(job: WebhookDeliveryJob, result: WebhookAttemptResult, draft: Draft): void {
  if (result.kind === 'delivered') {
    draft.settlements.push({
      deliveryId: job.deliveryId,
      state: 'DELIVERED',
      attempts: job.attempt,
      statusCode: result.status,
    });
    draft.successes.add(job.subscriberId);
    count(draft, 'delivered');
  } else if (result.kind === 'gone') {
    // Kept as MISSED: a resurrect after the owner fixed the endpoint replays them.
    draft.settlements.push({
      deliveryId: job.deliveryId,
      state: 'MISSED',
      attempts: job.attempt,
      statusCode: 410,
      error: 'HTTP 410',
    });
    draft.gone.set(job.subscriberId, 'HTTP 410 Gone');
    count(draft, 'gone');
  } else {
    draft.failed.push({
      job,
      error: result.error,
      status: result.status,
      retryAfterMs: result.retryAfterMs,
      request: result,
    });
    draft.lastErrors.set(job.subscriberId, result.error);
    count(draft, result.refused === true ? 'refused' : 'failed');
  }
}

/** Attempts made so far: a spilled delivery was not attempted this time. */
function attemptsMade(failure: FailedDelivery): number {
  return failure.spilled === true ? failure.job.attempt - 1 : failure.job.attempt;
}

/** A failed delivery of a subscriber that is not ALIVE (or tombstoned now): kept for a resurrect. */
function keep(failure: FailedDelivery, draft: Draft): void {
  draft.settlements.push({
    deliveryId: failure.job.deliveryId,
    state: 'MISSED',
    attempts: attemptsMade(failure),
    statusCode: failure.status,
    error: failure.error,
  });
}

function route(
  failure: FailedDelivery,
  input: WebhookWriteBackInput,
  draw: () => number,
  draft: Draft,
): void {
  const { job, error, status } = failure;
  const made = attemptsMade(failure);
  const hop = nextWebhookHop(
    input.retryDelaysMs,
    // A spill waits on the first tier every time: a backlog is not the subscriber failing.
    failure.spilled === true ? 1 : job.attempt,
    input.now,
    input.jitterRatio,
    failure.retryAfterMs,
    draw,
  );
  const value = deliveryValue(job, made + 1);
  const settled = { deliveryId: job.deliveryId, statusCode: status, error };
  if (hop.kind === 'retry') {
    const tier = WebhookRetryTiers[hop.tier] ?? WebhookRetryTiers[WebhookRetryTiers.length - 1];
    if (tier === undefined) throw new Error('No webhook retry tiers');
    const copies = draft.retries.get(tier.name) ?? [];
    copies.push({
      key: job.subscriberId,
      value,
      forward: { dueAt: hop.dueAt, attempt: made, originTopic: WEBHOOK_DELIVERY_ORIGIN, lastError: error },
    });
    draft.retries.set(tier.name, copies);
    draft.settlements.push({
      ...settled,
      state: 'RETRYING',
      attempts: made,
      nextAttemptAt: new Date(hop.dueAt),
    });
    return;
  }
  draft.deadLetters.push(deadLetter(job, value, error));
  draft.settlements.push({ ...settled, state: 'DEAD_LETTERED', attempts: job.attempt });
  count(draft, 'dead_lettered');
}

function deadLetter(job: WebhookDeliveryJob, value: WebhookDeliveryV1, error: string): WebhookDeadLetter {
  return {
    source: {
      topic: job.source?.topic ?? WEBHOOK_DELIVERY_ORIGIN,
      partition: job.source?.partition ?? 0,
      offset: job.source?.offset ?? 'n/a',
    },
    key: job.subscriberId,
    value,
    headers: {
      [KafkaHeaders.attempt]: String(job.attempt),
      [KafkaHeaders.originTopic]: WEBHOOK_DELIVERY_ORIGIN,
    },
    cause: {
      // The group whose attempts were used up (it reads the deliveries topic and its tiers).
      consumerGroup: ConsumerGroups.dispatcherDeliveries,
      errorCode: MessageHandlingErrorCode.RetriesExhausted,
      reason: error,
      attempts: job.attempt,
    },
  };
}

/** The delivery as the deliveries topic and its tiers carry it, as its `attempt`-th attempt. */
function deliveryValue(job: WebhookDeliveryJob, attempt: number): WebhookDeliveryV1 {
  return {
    deliveryId: job.deliveryId,
    subscriberId: job.subscriberId,
    eventId: job.eventId,
    eventType: job.eventType,
    payload: job.payload,
    attempt,
    firstAttemptAt: job.firstAttemptAt,
  };
}

function count(draft: Draft, outcome: WebhookOutcomeLabel): void {
  draft.outcomes.set(outcome, (draft.outcomes.get(outcome) ?? 0) + 1);
}

/** The jitter draw of one request (or one delivery), made once. */
function drawFor(draws: Map<unknown, number>, key: unknown, random: () => number): number {
  let draw = draws.get(key);
  if (draw === undefined) {
    draw = random();
    draws.set(key, draw);
  }
  return draw;
}
