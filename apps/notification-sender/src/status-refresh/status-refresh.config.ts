import { Expose } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { ToBool, ToInt } from '@ums/platform';

/** Status refresh: asking providers with a status API about UNKNOWN rows and SENT rows without a callback. */
export class StatusRefreshConfig {
  /** Off: no periodic refresh (operator requests are still served). */
  @Expose() @ToBool() @IsBoolean() STATUS_REFRESH_ENABLED = true;
  /** How often one replica (a named lock) refreshes: operator requests first, then the periodic walk. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) STATUS_REFRESH_INTERVAL_MS = 60_000;
  /** A SENT row without a callback this long after its claim is asked about (once). */
  @Expose() @ToInt() @IsInt() @Min(60_000) @Max(604_800_000) STATUS_REFRESH_SENT_AFTER_MS = 3_600_000;
  /** SENT rows claimed longer ago than this are no longer asked about (nor counted as candidates). */
  @Expose() @ToInt() @IsInt() @Min(3_600_000) @Max(7_776_000_000) STATUS_REFRESH_SENT_MAX_AGE_MS =
    604_800_000;
  /**
   * An UNKNOWN row is asked about this long after its claim: a little past SENDER_CLAIM_TIMEOUT_MS
   * (checked at start-up), so a late send has reached the provider's records.
   */
  @Expose() @ToInt() @IsInt() @Min(10_000) @Max(86_400_000) STATUS_REFRESH_UNKNOWN_AFTER_MS = 300_000;
  /** Rows looked up per round (each round settles them before the next starts). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) STATUS_REFRESH_BATCH = 1_000;
  /** Rounds per refresh at most, so one refresh cannot run for ever behind a large backlog. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1_000) STATUS_REFRESH_MAX_ROUNDS = 20;
  /** Lookup requests in flight at once per refresh (a credential's own concurrency limit applies too). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(64) STATUS_REFRESH_CONCURRENCY = 4;
}
