import type { AimdParams, AimdStart, CongestionThresholds } from '@ums/domain';
import { InvalidInputError } from '@ums/platform';
import { RateLimitErrorCode } from '@ums/contracts';

/** The AIMD rule's settings apart from a credential's own bounds, and where a new credential starts. */
export interface AimdTuning extends Omit<AimdParams, 'ceiling' | 'floor'> {
  /** `ceiling` (a few 429s, then cut) or `floor` (climbs step by step). */
  readonly start: AimdStart;
}

/**
 * How the limiter works (README, Rate limiting): typed constants, not environment. An operator sets a
 * credential's ceiling, floor and tenant cap; these shape the algorithm and change with the code and
 * its tests. Tests build other values with `rateLimitTuning` and hand them to `RateLimitConfig`.
 */
export interface RateLimitTuning {
  /**
   * Depth of a bucket, in milliseconds of its rate (at least one token). Any 1-second window grants at
   * most rate x (1 + this/1000): 25 ms keeps a credential within 2.5% of its limit.
   */
  readonly burstMs: number;
  /**
   * How far ahead, in milliseconds of its rate, a bucket grants tokens for a later slot (the grant says
   * when its slot starts). Longer than a busy sender's round trip to Redis plus its timer lag, so the
   * bucket never stands full while callers are between two calls; short, because the messages of a
   * reserved slot are claimed while they wait for it. 0: tokens only as they accrue.
   */
  readonly aheadMs: number;
  /** A campaign that asked for bulk tokens within this window counts for the fair shares of its credential. */
  readonly activeWindowMs: number;
  /** How long an unmet priority request holds bulk back (priority requesters ask again well within it). */
  readonly priorityHoldMs: number;
  /** Longest retryAfterMs returned; below half the active window so waiting campaigns keep their share. */
  readonly maxRetryMs: number;
  /** Idle credentials, campaigns and tenants vanish from Redis after this (their AIMD rate starts over). */
  readonly keyTtlMs: number;
  readonly aimd: AimdTuning;
}

export const RATE_LIMIT_TUNING: RateLimitTuning = Object.freeze({
  burstMs: 25,
  aheadMs: 200,
  activeWindowMs: 1_000,
  priorityHoldMs: 250,
  maxRetryMs: 200,
  keyTtlMs: 3_600_000,
  aimd: Object.freeze({
    start: 'ceiling',
    /** Additive increase at most once per interval, while healthy and used. */
    intervalMs: 1_000,
    /** The increase: 5% of the ceiling. */
    increaseFraction: 0.05,
    /**
     * On congestion the rate is halved, as docs/architecture.md (Sending) says; 0.7 used a simulated
     * provider's capacity better (89% against 79%).
     */
    decreaseFactor: 0.5,
    /** At most one cut per cooldown: at least a provider round trip, so one burst of 429s cuts once. */
    cooldownMs: 1_000,
    /** Granted share of the rate an interval needs before an increase (an idle credential does not climb). */
    minUtilization: 0.8,
    /** Congestion: 3 throttled answers that are also 1% of the attempts, or 5 5xx and timeouts that are 10%. */
    congestion: Object.freeze({ congestedMin: 3, congestedRatio: 0.01, errorsMin: 5, errorsRatio: 0.1 }),
  }),
});

export type RateLimitTuningOverrides = Partial<Omit<RateLimitTuning, 'aimd'>> & {
  readonly aimd?: Partial<Omit<AimdTuning, 'congestion'>> & {
    readonly congestion?: Partial<CongestionThresholds>;
  };
};

const INVALID = RateLimitErrorCode.TuningInvalid;

/**
 * `RATE_LIMIT_TUNING` with some values replaced (tests: a short AIMD interval, a deep bucket), checked
 * against the bounds the Lua scripts and the AIMD rule rely on.
 */
export function rateLimitTuning(overrides: RateLimitTuningOverrides = {}): RateLimitTuning {
  const base = RATE_LIMIT_TUNING;
  const tuning: RateLimitTuning = {
    ...base,
    ...overrides,
    aimd: {
      ...base.aimd,
      ...overrides.aimd,
      congestion: { ...base.aimd.congestion, ...overrides.aimd?.congestion },
    },
  };
  checkTuning(tuning);
  return tuning;
}

function checkTuning(t: RateLimitTuning): void {
  const between = (field: string, value: number, min: number, max: number): void => {
    if (!Number.isFinite(value) || value < min || value > max) {
      throw InvalidInputError.field(INVALID, field, `must be within ${min}..${max}`);
    }
  };
  between('burstMs', t.burstMs, 1, 1_000);
  between('aheadMs', t.aheadMs, 0, 1_000);
  between('activeWindowMs', t.activeWindowMs, 500, 60_000);
  between('priorityHoldMs', t.priorityHoldMs, 50, 10_000);
  between('maxRetryMs', t.maxRetryMs, 5, t.activeWindowMs / 2);
  between('keyTtlMs', t.keyTtlMs, 10_000, 604_800_000);
  between('aimd.intervalMs', t.aimd.intervalMs, 50, 60_000);
  between('aimd.increaseFraction', t.aimd.increaseFraction, 0.01, 0.5);
  between('aimd.decreaseFactor', t.aimd.decreaseFactor, 0.1, 0.95);
  between('aimd.cooldownMs', t.aimd.cooldownMs, 50, 60_000);
  between('aimd.minUtilization', t.aimd.minUtilization, 0.01, 1);
  between('aimd.congestion.congestedMin', t.aimd.congestion.congestedMin, 1, 10_000);
  between('aimd.congestion.congestedRatio', t.aimd.congestion.congestedRatio, 0, 1);
  between('aimd.congestion.errorsMin', t.aimd.congestion.errorsMin, 1, 10_000);
  between('aimd.congestion.errorsRatio', t.aimd.congestion.errorsRatio, 0, 1);
}
