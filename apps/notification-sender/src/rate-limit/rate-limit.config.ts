import { Expose } from 'class-transformer';
import { IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

/** Per-credential token buckets in Redis, fair shares, the priority lane and AIMD (README, Rate limiting). */
export class RateLimitConfig {
  /** Prefix of every rate-limit key in Redis (tests use one per run). */
  @Expose()
  @Matches(/^[A-Za-z0-9:_.{}-]{1,64}$/, {
    message: 'RATE_LIMIT_KEY_PREFIX must be 1-64 of A-Z a-z 0-9 : _ . { } -',
  })
  RATE_LIMIT_KEY_PREFIX = 'ums:rl:';
  /**
   * Depth of a bucket, in milliseconds of its rate (at least one token). Any 1-second window grants
   * at most rate x (1 + this/1000): 25 ms keeps a credential within 2.5% of its limit.
   */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1000) RATE_LIMIT_BURST_MS = 25;
  /**
   * How far ahead, in milliseconds of its rate, a bucket grants tokens for a later slot (the grant says
   * when its slot starts). Longer than a busy sender's round trip to Redis plus its timer lag, so the
   * bucket never stands full while callers are between two calls; short, because the messages of a
   * reserved slot are claimed while they wait for it. 0: tokens only as they accrue.
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(1000) RATE_LIMIT_AHEAD_MS = 200;
  /** A campaign that asked for bulk tokens within this window counts for the fair shares of its credential. */
  @Expose() @ToInt() @IsInt() @Min(500) @Max(60_000) RATE_LIMIT_ACTIVE_WINDOW_MS = 1000;
  /** How long an unmet priority request holds bulk back (priority requesters ask again well within it). */
  @Expose() @ToInt() @IsInt() @Min(50) @Max(10_000) RATE_LIMIT_PRIORITY_HOLD_MS = 250;
  /** Longest retryAfterMs returned; below half the active window so waiting campaigns keep their share. */
  @Expose() @ToInt() @IsInt() @Min(5) @Max(250) RATE_LIMIT_MAX_RETRY_MS = 200;
  /** Idle credentials, campaigns and tenants vanish from Redis after this (their AIMD rate starts over). */
  @Expose() @ToInt() @IsInt() @Min(10) @Max(604_800) RATE_LIMIT_KEY_TTL_SEC = 3600;

  /** Where a credential's rate starts: `ceiling` (a few 429s, then cut) or `floor` (climbs step by step). */
  @Expose() @IsIn(['ceiling', 'floor']) RATE_LIMIT_AIMD_START: 'ceiling' | 'floor' = 'ceiling';
  /** Additive increase once per interval while healthy and used. */
  @Expose() @ToInt() @IsInt() @Min(50) @Max(60_000) RATE_LIMIT_AIMD_INTERVAL_MS = 1000;
  /** The increase, in percent of the ceiling. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(50) RATE_LIMIT_AIMD_STEP_PERCENT = 5;
  /** On congestion the rate becomes this percent of itself (50 halves it, as docs/architecture.md, Sending, says; 70 used the capacity better in simulation: 89% against 79%). */
  @Expose() @ToInt() @IsInt() @Min(10) @Max(95) RATE_LIMIT_AIMD_DECREASE_PERCENT = 50;
  /** At most one cut per cooldown; at least a provider round trip, so one burst of 429s cuts once. */
  @Expose() @ToInt() @IsInt() @Min(50) @Max(60_000) RATE_LIMIT_AIMD_COOLDOWN_MS = 1000;
  /** Granted share of the rate an interval needs before an increase (an idle credential does not climb). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100) RATE_LIMIT_AIMD_MIN_UTILIZATION_PERCENT = 80;
  /** 429/throttling answers in a window that mean congestion: at least this many ... */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) RATE_LIMIT_AIMD_CONGESTED_MIN = 3;
  /** ... and at least this per mille of the attempts (10 = 1%), so a stray 429 does not cut. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(1000) RATE_LIMIT_AIMD_CONGESTED_PERMILLE = 10;
  /** 5xx and timeouts together in a window that mean congestion: at least this many ... */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) RATE_LIMIT_AIMD_ERRORS_MIN = 5;
  /** ... and at least this per mille of the attempts (100 = 10%). */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(1000) RATE_LIMIT_AIMD_ERRORS_PERMILLE = 100;
}
