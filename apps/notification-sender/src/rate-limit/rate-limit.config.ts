import { Expose } from 'class-transformer';
import { IsInt, Matches, Max, Min } from 'class-validator';
import { loadConfig, ToInt } from '@ums/platform';
import {
  RATE_LIMIT_TUNING,
  rateLimitTuning,
  type RateLimitTuning,
  type RateLimitTuningOverrides,
} from './rate-limit.tuning';

/** Per-credential token buckets in Redis, fair shares, the priority lane and AIMD (README, Rate limiting). */
export class RateLimitConfig {
  /** Prefix of every rate-limit key in Redis, to share one Redis between deployments (tests use one per run). */
  @Expose()
  @Matches(/^[A-Za-z0-9:_.{}-]{1,64}$/, {
    message: 'RATE_LIMIT_KEY_PREFIX must be 1-64 of A-Z a-z 0-9 : _ . { } -',
  })
  RATE_LIMIT_KEY_PREFIX = 'ums:rl:';
  /**
   * Seconds of per-credential figures (`credential_rate_seconds`) one replica holds while MySQL does not
   * take them; past that the oldest seconds are dropped (`ums_rate_limit_seconds_dropped_total`).
   */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(86_400) RATE_LIMIT_SECONDS_MAX_PENDING = 600;
  /**
   * The algorithm's settings: the typed constants of rate-limit.tuning.ts, never read from the
   * environment (the field is not exposed). Code that builds the limiter itself (tests) passes its
   * own through `rateLimitConfigOf`.
   */
  readonly tuning: RateLimitTuning = RATE_LIMIT_TUNING;
}

/** A config built in code: the key prefix checked as at start-up, the tuning with some values replaced. */
export function rateLimitConfigOf(keyPrefix: string, overrides?: RateLimitTuningOverrides): RateLimitConfig {
  const config = loadConfig(RateLimitConfig, { RATE_LIMIT_KEY_PREFIX: keyPrefix });
  return Object.freeze({ ...config, tuning: rateLimitTuning(overrides) });
}
