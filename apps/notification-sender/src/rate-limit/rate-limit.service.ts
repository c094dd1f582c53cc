import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Optional } from '@nestjs/common';
import { type AimdParams, type AimdStep, decideAimd, groupedTokenSlots, seedRate } from '@ums/domain';
import { InvalidInputError, UnavailableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CAMPAIGN_PRIORITY, RateLimitErrorCode } from '@ums/contracts';
import { CredentialRateSecondsAccumulator } from './credential-rate-seconds.accumulator';
import { RateLimitConfig } from './rate-limit.config';
import { RateLimitMetrics } from './rate-limit.metrics';
import {
  type OutcomeCounts,
  type RateCredential,
  type RateLane,
  RateLimitRepository,
} from './rate-limit.repository';
import { ServerClock } from './server-clock';

export type { RateCredential, RateLane } from './rate-limit.repository';

export interface AcquireRequest {
  readonly credentialId: string;
  readonly tenantId: string;
  /** Required on the bulk lane (fair shares are per campaign); optional for single sends. */
  readonly campaignId?: string;
  /**
   * The campaign's weight in the credential's fair share: its priority, 1..10 (1 when absent). While
   * several campaigns send, each gets rate x weight / (sum of their weights). Bulk lane only.
   */
  readonly weight?: number;
  readonly lane: RateLane;
  /** Tokens (messages) wanted now: a batch, never one call per message. */
  readonly want: number;
  /** The credential's bounds (credentials.rate_ceiling_per_sec / rate_floor_per_sec). */
  readonly ceiling: number;
  readonly floor: number;
  /** The tenant's cap over all its credentials (credentials.tenant_rate_cap_per_sec); none when absent. */
  readonly tenantCapPerSec?: number | null;
}

export interface AcquireResult {
  /** 0..want tokens; send exactly that many messages, each at its slot (tokens are not to be banked). */
  readonly granted: number;
  /**
   * The slot of each granted token, in ms from the grant, ascending: its message goes then, not
   * before (0: now). A grant may reserve up to `tuning.aheadMs` ahead. Tokens are grouped by
   * `tuning.burstMs` (libs/domain groupedTokenSlots): those of one slot may go in one request.
   */
  readonly slotsMs: readonly number[];
  /**
   * When Redis decided, on this process's clock (`performance.now()`): the slots count from here,
   * not from when the answer arrived, so a replica whose answer came late does not send late,
   * bunched with the sends of replicas on time.
   */
  readonly decidedAt: number;
  /** When fewer than wanted were granted: when asking again is worthwhile. */
  readonly retryAfterMs: number;
  /** The credential's current AIMD rate. */
  readonly rate: number;
  /** Redis server time of the decision. */
  readonly serverTimeMs: number;
}

/** What the provider answered for the messages of one call (or batch of calls). */
export type SendOutcome = OutcomeCounts;

export interface ReportResult {
  readonly step: AimdStep;
  /** False when another replica applied a decision first (this one is then moot). */
  readonly applied: boolean;
}

const MAX_WANT = 100_000;
const { min: MIN_WEIGHT, max: MAX_WEIGHT } = CAMPAIGN_PRIORITY;
const INVALID = RateLimitErrorCode.RequestInvalid;

/** A caller of take() waiting for its tokens. */
interface TakeWaiter {
  readonly request: AcquireRequest;
  readonly started: number;
  readonly settle: (
    outcome:
      | { readonly ok: true; readonly value: AcquireResult & { waitedMs: number } }
      | { readonly ok: false; readonly error: unknown },
  ) => void;
}

interface TakeQueue {
  readonly waiters: TakeWaiter[];
  polling: boolean;
}

/**
 * Per-credential token buckets shared by every sender replica (README, Rate limiting): fair shares
 * between campaigns, a priority lane for single sends, a per-tenant cap, and AIMD on what the
 * provider answers.
 */
@Injectable()
export class RateLimitService {
  /** Local callers of one (credential, lane, campaign, tenant): one Redis call asks for all of them. */
  private readonly queues = new Map<string, TakeQueue>();
  /**
   * When this process last saw each credential's state in Redis (Date.now() of a grant). Every grant
   * renews the state's lifetime (`tuning.keyTtlMs`), so a state missing well within it was lost
   * (Redis restarted empty), not expired: it is created again at the floor (seedRate).
   */
  private readonly stateSeenAt = new Map<string, number>();
  /** Redis server time to this process's clock (see ServerClock). */
  private readonly serverClock = new ServerClock();
  private readonly stateLostWithinMs: number;

  constructor(
    private readonly repository: RateLimitRepository,
    private readonly config: RateLimitConfig,
    private readonly metrics: RateLimitMetrics,
    private readonly logger: PinoLogger,
    /** Per-second figures for `credential_rate_seconds` (none where the limiter is built without them). */
    @Optional() private readonly seconds?: CredentialRateSecondsAccumulator,
  ) {
    this.logger.setContext(RateLimitService.name);
    const ttlMs = config.tuning.keyTtlMs;
    // A margin for the time between Redis renewing the lifetime and this process reading the answer.
    this.stateLostWithinMs = ttlMs - Math.min(5_000, ttlMs / 2);
  }

  /**
   * One attempt: grants up to `want` tokens now (one Redis round trip). Redis errors reject: no
   * grant, no send (fail closed); the caller's batch is handled again once Redis answers.
   */
  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    validate(request);
    const bounds = { ceiling: request.ceiling, floor: request.floor };
    const seenAt = this.stateSeenAt.get(request.credentialId);
    const stateLost = seenAt !== undefined && Date.now() - seenAt < this.stateLostWithinMs;
    const grant = await this.repository.acquire({
      credentialId: request.credentialId,
      tenantId: request.tenantId,
      campaignId: request.campaignId ?? '',
      lane: request.lane,
      want: request.want,
      ceiling: request.ceiling,
      floor: request.floor,
      initialRate: seedRate(bounds, this.config.tuning.aimd.start, stateLost),
      tenantCapPerSec: request.tenantCapPerSec ?? 0,
      weight: request.weight ?? CAMPAIGN_PRIORITY.default,
    });
    const decidedAt = this.serverClock.toLocal(grant.serverTimeMs);
    const slotsMs = groupedTokenSlots(
      { ...grant, tenantCapPerSec: request.tenantCapPerSec },
      this.config.tuning.burstMs,
    );
    this.noteStateSeen(request.credentialId, grant.fresh && stateLost, grant.rate);
    this.metrics.rate.set({ credential: request.credentialId }, grant.rate);
    this.seconds?.granted(request, grant.granted, grant.rate);
    if (grant.granted > 0) {
      this.metrics.tokensGranted.inc({ credential: request.credentialId, lane: request.lane }, grant.granted);
    }
    return {
      granted: grant.granted,
      retryAfterMs: grant.retryAfterMs,
      rate: grant.rate,
      serverTimeMs: grant.serverTimeMs,
      slotsMs,
      decidedAt,
    };
  }

  private noteStateSeen(credentialId: string, reseeded: boolean, rate: number): void {
    if (this.stateSeenAt.size >= 10_000 && !this.stateSeenAt.has(credentialId)) this.stateSeenAt.clear();
    this.stateSeenAt.set(credentialId, Date.now());
    if (!reseeded) return;
    this.metrics.stateReseeded.inc({ credential: credentialId });
    this.logger.warn({ credentialId, rate }, 'Rate-limit state was lost in Redis: re-seeded from the floor');
  }

  /**
   * Waits until at least one token is granted (up to `want`), asking again after each retryAfterMs.
   * Callers in this process with the same credential, lane, campaign and tenant share one queue:
   * one Redis call asks for all of their wants at once and the grant is handed out in arrival order.
   * (One call per caller in turn serialized a campaign's batches behind Redis round trips: measured
   * 2.6 s per batch and 1,300 sends/s for one campaign with the credential's rate far above that.)
   * An abort (shutdown) rejects with RATE_LIMIT_WAIT_ABORTED. A Redis error rejects every queued
   * caller with it (an infrastructure error): without a grant nothing is sent.
   */
  take(request: AcquireRequest, signal?: AbortSignal): Promise<AcquireResult & { waitedMs: number }> {
    validate(request);
    if (signal?.aborted === true) return Promise.reject(aborted(signal.reason));
    const key = [request.credentialId, request.lane, request.campaignId ?? '', request.tenantId].join(
      '\u0000',
    );
    let queue = this.queues.get(key);
    if (queue === undefined) {
      queue = { waiters: [], polling: false };
      this.queues.set(key, queue);
    }
    const lane = { lane: request.lane };
    this.metrics.waiting.inc(lane);
    const queued = queue;
    const result = new Promise<AcquireResult & { waitedMs: number }>((resolve, reject) => {
      const waiter: TakeWaiter = {
        request,
        started: performance.now(),
        settle: (outcome) => {
          signal?.removeEventListener('abort', onAbort);
          this.metrics.waiting.dec(lane);
          if (outcome.ok) {
            this.metrics.waitSeconds.observe(lane, outcome.value.waitedMs / 1000);
            resolve(outcome.value);
          } else reject(outcome.error);
        },
      };
      const onAbort = (): void => {
        const at = queued.waiters.indexOf(waiter);
        if (at < 0) return;
        queued.waiters.splice(at, 1);
        waiter.settle({ ok: false, error: aborted(signal?.reason) });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queued.waiters.push(waiter);
    });
    if (!queue.polling) void this.poll(key, queue);
    return result;
  }

  /** Asks Redis for every queued want at once until the queue is empty; never rejects. */
  private async poll(key: string, queue: TakeQueue): Promise<void> {
    queue.polling = true;
    try {
      while (queue.waiters.length > 0) {
        const head = queue.waiters[0] as TakeWaiter;
        let want = 0;
        for (const waiter of queue.waiters) want = Math.min(MAX_WANT, want + waiter.request.want);
        let grant: AcquireResult;
        try {
          grant = await this.acquire({ ...head.request, want });
        } catch (error: unknown) {
          // Each caller would have had this error from its own call.
          for (const waiter of queue.waiters.splice(0)) waiter.settle({ ok: false, error });
          break;
        }
        // Tokens of callers that aborted meanwhile go to the next ones, or are spent unused.
        let given = 0;
        while (given < grant.granted && queue.waiters.length > 0) {
          const waiter = queue.waiters.shift() as TakeWaiter;
          const granted = Math.min(waiter.request.want, grant.granted - given);
          const slotsMs = grant.slotsMs.slice(given, given + granted);
          given += granted;
          const waitedMs = performance.now() - waiter.started;
          waiter.settle({ ok: true, value: { ...grant, granted, slotsMs, waitedMs } });
        }
        if (queue.waiters.length > 0 && grant.granted < want) await sleep(grant.retryAfterMs);
      }
    } finally {
      queue.polling = false;
      if (queue.waiters.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
    }
  }

  /**
   * Returns `count` tokens of an earlier grant that were not spent (their messages will take a fresh
   * grant), so a stale grant costs the credential nothing.
   */
  async giveBack(request: AcquireRequest, count: number): Promise<void> {
    validate(request);
    if (!Number.isInteger(count) || count < 1 || count > MAX_WANT) {
      throw InvalidInputError.field(INVALID, 'count', `must be an integer 1..${MAX_WANT}`);
    }
    await this.repository.giveBack({
      credentialId: request.credentialId,
      tenantId: request.tenantId,
      campaignId: request.campaignId ?? '',
      lane: request.lane,
      count,
      tenantCapPerSec: request.tenantCapPerSec ?? 0,
    });
    this.metrics.tokensGivenBack.inc({ credential: request.credentialId, lane: request.lane }, count);
  }

  /**
   * Feeds one batch's outcomes into the credential's AIMD window and applies the decision of the
   * pure rule (libs/domain decideAimd) with a compare-and-set, so concurrent replicas apply each
   * decision once.
   */
  async report(credential: RateCredential, outcome: SendOutcome): Promise<ReportResult | undefined> {
    validateOutcome(outcome);
    const { credentialId } = credential;
    const { accepted, congested, errors5xx, timeouts } = outcome;
    if (accepted + congested + errors5xx + timeouts === 0) return undefined;
    if (congested > 0)
      this.metrics.congestionEvents.inc({ credential: credentialId, kind: 'throttled' }, congested);
    if (errors5xx > 0)
      this.metrics.congestionEvents.inc({ credential: credentialId, kind: 'server_error' }, errors5xx);
    if (timeouts > 0)
      this.metrics.congestionEvents.inc({ credential: credentialId, kind: 'timeout' }, timeouts);
    // What the provider answered counts whether or not Redis takes the report.
    this.seconds?.reported(credential, outcome);
    const seen = await this.repository.report(credential, outcome);
    if (seen === undefined) return undefined;
    this.seconds?.rate(credential, seen.state.rate);
    const step = decideAimd(seen.state, seen.window, seen.nowMs, this.aimdParams(seen.ceiling, seen.floor));
    if (step.action === 'hold') return { step, applied: false };
    const applied = await this.repository.applyAimd(credential, seen, step.rate, step.action === 'decrease');
    if (!applied) return { step, applied };
    this.seconds?.rate(credential, step.rate, step.action === 'decrease');
    this.metrics.rate.set({ credential: credentialId }, step.rate);
    if (step.action === 'decrease') {
      this.metrics.rateChanges.inc({ credential: credentialId, step: 'decrease' });
      this.logger.info(
        { credentialId, from: seen.state.rate, to: step.rate, cause: step.cause, window: seen.window },
        'Provider congested: credential rate cut',
      );
    } else if (step.action === 'increase') {
      this.metrics.rateChanges.inc({ credential: credentialId, step: 'increase' });
      this.logger.debug({ credentialId, from: seen.state.rate, to: step.rate }, 'Credential rate raised');
    }
    return { step, applied };
  }

  private aimdParams(ceiling: number, floor: number): AimdParams {
    const { start: _start, ...rule } = this.config.tuning.aimd;
    return { ...rule, ceiling, floor };
  }
}

function validate(r: AcquireRequest): void {
  const positive = (v: number): boolean => Number.isFinite(v) && v > 0;
  if (r.credentialId === '') throw InvalidInputError.field(INVALID, 'credentialId', 'must not be empty');
  if (r.tenantId === '') throw InvalidInputError.field(INVALID, 'tenantId', 'must not be empty');
  if (r.lane === 'bulk' && (r.campaignId ?? '') === '') {
    throw InvalidInputError.field(INVALID, 'campaignId', 'is required on the bulk lane');
  }
  if (!Number.isInteger(r.want) || r.want < 1 || r.want > MAX_WANT) {
    throw InvalidInputError.field(INVALID, 'want', `must be an integer 1..${MAX_WANT}`);
  }
  if (!positive(r.floor)) throw InvalidInputError.field(INVALID, 'floor', 'must be positive');
  if (!positive(r.ceiling) || r.ceiling < r.floor) {
    throw InvalidInputError.field(INVALID, 'ceiling', 'must be positive and at least the floor');
  }
  if (
    r.weight !== undefined &&
    !(Number.isInteger(r.weight) && r.weight >= MIN_WEIGHT && r.weight <= MAX_WEIGHT)
  ) {
    throw InvalidInputError.field(INVALID, 'weight', `must be an integer ${MIN_WEIGHT}..${MAX_WEIGHT}`);
  }
  const cap = r.tenantCapPerSec;
  if (cap !== undefined && cap !== null && !positive(cap)) {
    throw InvalidInputError.field(INVALID, 'tenantCapPerSec', 'must be positive when given');
  }
}

function validateOutcome(o: SendOutcome): void {
  for (const field of ['accepted', 'congested', 'errors5xx', 'timeouts'] as const) {
    if (!Number.isInteger(o[field]) || o[field] < 0) {
      throw InvalidInputError.field(INVALID, field, 'must be a non-negative integer');
    }
  }
}

function aborted(cause: unknown): UnavailableError {
  return new UnavailableError(
    RateLimitErrorCode.WaitAborted,
    'Stopped waiting for rate-limit tokens',
    undefined,
    { cause },
  );
}
