import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class SweeperConfig {
  /** A SCHEDULED or RUNNING run whose checkpoint is older than this is retried (seed 002: 10 minutes). */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) CHECKPOINT_DEADLINE_MS = 600_000;
  /** Stale-checkpoint retries of one run before it is FAILED. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(1_000) RUN_MAX_ATTEMPTS = 5;
  @Expose() @ToInt() @IsInt() @Min(50) @Max(60_000) SWEEPER_TICK_MS = 1_000;
  /**
   * How long the rate limiters' per-second figures (`credential_rate_seconds`) are kept: at least an
   * hour (the longest series the API answers), at most 30 days. Congestion events go back 24 hours at most.
   */
  @Expose() @ToInt() @IsInt() @Min(3_600_000) @Max(2_592_000_000) CREDENTIAL_RATE_RETENTION_MS = 86_400_000;
  /** How often each replica deletes per-second rate figures past their retention. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(3_600_000) CREDENTIAL_RATE_PRUNE_TICK_MS = 60_000;
  /**
   * How often each replica resumes runs paused for quota (QUOTA_EXHAUSTED) of tenants whose UTC day and
   * month are under their caps again.
   */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(3_600_000) CREDIT_QUOTA_RESUME_TICK_MS = 15_000;
  /** How many days of quota usage counts (`credit_quota_usage`) are kept: at least a month and a day. */
  @Expose() @ToInt() @IsInt() @Min(32) @Max(3_660) CREDIT_QUOTA_USAGE_RETENTION_DAYS = 62;
  /** How often each replica deletes quota usage counts past their retention. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) CREDIT_QUOTA_USAGE_PRUNE_TICK_MS = 3_600_000;
}
