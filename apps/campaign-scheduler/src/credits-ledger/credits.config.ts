import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class CreditsConfig {
  /** How often each replica reads balances and paused runs into ums_credit_balance and ums_runs_paused_for_credits. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(3_600_000) CREDIT_METRICS_TICK_MS = 30_000;
}
