import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { type AimdParams, type AimdStep, decideAimd, initialRate } from '@ums/domain';
import { InvalidInputError, UnavailableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { RateLimitConfig } from './rate-limit.config';
import { RateLimitMetrics } from './rate-limit.metrics';
import { type OutcomeCounts, type RateLane, RateLimitRepository } from './rate-limit.repository';

export type { RateLane } from './rate-limit.repository';

export interface AcquireRequest {
  readonly credentialId: string;
  readonly tenantId: string;
  /** Required on the bulk lane (fair shares are per campaign); optional for single sends. */
  readonly campaignId?: string;
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
  /** 0..want tokens; send exactly that many messages now (tokens are not to be banked). */
  readonly granted: number;
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
const INVALID = 'RATE_LIMIT_REQUEST_INVALID';

/**
 * Per-credential token buckets shared by every sender replica (README, Rate limiting): fair shares
 * between campaigns, a priority lane for single sends, a per-tenant cap, and AIMD on what the
 * provider answers.
 */
@Injectable()
export class RateLimitService {
  /** Local callers of one (credential, lane, campaign, tenant) queue behind each other: one polls Redis. */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly repository: RateLimitRepository,
    private readonly config: RateLimitConfig,
    private readonly metrics: RateLimitMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(RateLimitService.name);
  }

  /** One attempt: grants up to `want` tokens now (one Redis round trip). */
  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    validate(request);
    const bounds = { ceiling: request.ceiling, floor: request.floor };
    const grant = await this.repository.acquire({
      credentialId: request.credentialId,
      tenantId: request.tenantId,
      campaignId: request.campaignId ?? '',
      lane: request.lane,
      want: request.want,
      ceiling: request.ceiling,
      floor: request.floor,
      initialRate: initialRate(bounds, this.config.RATE_LIMIT_AIMD_START),
      tenantCapPerSec: request.tenantCapPerSec ?? 0,
    });
    this.metrics.rate.set({ credential: request.credentialId }, grant.rate);
    if (grant.granted > 0) {
      this.metrics.tokensGranted.inc({ credential: request.credentialId, lane: request.lane }, grant.granted);
    }
    return {
      granted: grant.granted,
      retryAfterMs: grant.retryAfterMs,
      rate: grant.rate,
      serverTimeMs: grant.serverTimeMs,
    };
  }

  /**
   * Waits until at least one token is granted (up to `want`), asking again after each retryAfterMs.
   * Callers in this process with the same credential, lane, campaign and tenant take turns, so one
   * of them polls Redis at a time; an abort (shutdown) rejects with RATE_LIMIT_WAIT_ABORTED.
   */
  async take(request: AcquireRequest, signal?: AbortSignal): Promise<AcquireResult & { waitedMs: number }> {
    validate(request);
    const key = [request.credentialId, request.lane, request.campaignId ?? '', request.tenantId].join(
      '\u0000',
    );
    const previous = this.turns.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.turns.set(key, tail);
    const started = performance.now();
    const lane = { lane: request.lane };
    this.metrics.waiting.inc(lane);
    try {
      await abortable(previous, signal);
      for (;;) {
        const result = await this.acquire(request);
        if (result.granted > 0) {
          const waitedMs = performance.now() - started;
          this.metrics.waitSeconds.observe(lane, waitedMs / 1000);
          return { ...result, waitedMs };
        }
        await sleep(result.retryAfterMs, undefined, { signal }).catch((error: unknown) => {
          throw aborted(error);
        });
      }
    } finally {
      this.metrics.waiting.dec(lane);
      release();
      if (this.turns.get(key) === tail) this.turns.delete(key);
    }
  }

  /**
   * Feeds one batch's outcomes into the credential's AIMD window and applies the decision of the
   * pure rule (libs/domain decideAimd) with a compare-and-set, so concurrent replicas apply each
   * decision once.
   */
  async report(credentialId: string, outcome: SendOutcome): Promise<ReportResult | undefined> {
    validateOutcome(outcome);
    const { accepted, congested, errors5xx, timeouts } = outcome;
    if (accepted + congested + errors5xx + timeouts === 0) return undefined;
    if (congested > 0)
      this.metrics.congestionEvents.inc({ credential: credentialId, kind: 'throttled' }, congested);
    if (errors5xx > 0)
      this.metrics.congestionEvents.inc({ credential: credentialId, kind: 'server_error' }, errors5xx);
    if (timeouts > 0)
      this.metrics.congestionEvents.inc({ credential: credentialId, kind: 'timeout' }, timeouts);
    const seen = await this.repository.report(credentialId, outcome);
    if (seen === undefined) return undefined;
    const step = decideAimd(seen.state, seen.window, seen.nowMs, this.aimdParams(seen.ceiling, seen.floor));
    if (step.action === 'hold') return { step, applied: false };
    const applied = await this.repository.applyAimd(
      credentialId,
      seen,
      step.rate,
      step.action === 'decrease',
    );
    if (!applied) return { step, applied };
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
    const c = this.config;
    return {
      ceiling,
      floor,
      increaseFraction: c.RATE_LIMIT_AIMD_STEP_PERCENT / 100,
      decreaseFactor: c.RATE_LIMIT_AIMD_DECREASE_PERCENT / 100,
      intervalMs: c.RATE_LIMIT_AIMD_INTERVAL_MS,
      cooldownMs: c.RATE_LIMIT_AIMD_COOLDOWN_MS,
      minUtilization: c.RATE_LIMIT_AIMD_MIN_UTILIZATION_PERCENT / 100,
      congestion: {
        congestedMin: c.RATE_LIMIT_AIMD_CONGESTED_MIN,
        congestedRatio: c.RATE_LIMIT_AIMD_CONGESTED_PERMILLE / 1000,
        errorsMin: c.RATE_LIMIT_AIMD_ERRORS_MIN,
        errorsRatio: c.RATE_LIMIT_AIMD_ERRORS_PERMILLE / 1000,
      },
    };
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

async function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) throw aborted(signal.reason);
  let onAbort: (() => void) | undefined;
  const abort = new Promise<never>((_, reject) => {
    onAbort = () => reject(aborted(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([promise, abort]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

function aborted(cause: unknown): UnavailableError {
  return new UnavailableError('RATE_LIMIT_WAIT_ABORTED', 'Stopped waiting for rate-limit tokens', undefined, {
    cause,
  });
}
