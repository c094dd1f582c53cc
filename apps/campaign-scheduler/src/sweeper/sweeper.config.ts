import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class SweeperConfig {
  /** A SCHEDULED or RUNNING run whose checkpoint is older than this is retried (seed 002: 10 minutes). */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) CHECKPOINT_DEADLINE_MS = 600_000;
  /** Stale-checkpoint retries of one run before it is FAILED. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(1_000) RUN_MAX_ATTEMPTS = 5;
  @Expose() @ToInt() @IsInt() @Min(50) @Max(60_000) SWEEPER_TICK_MS = 1_000;
}
