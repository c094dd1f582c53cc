import { Expose } from 'class-transformer';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { Topics } from '@ums/contracts';
import { ToInt } from '@ums/platform';

/** A batch older than its topic's retention can no longer be delivered again, so its inbox row may go. */
const FINISHED_BATCH_RETENTION_FLOOR_MS = Topics.batches.retentionMs;

export class SendingConfig {
  /**
   * A SENDING row claimed (or its claim refreshed) longer ago than this becomes UNKNOWN: its sender
   * died between claim and result. Checked at start-up against the provider timeouts (claim-timing.ts).
   */
  @Expose() @ToInt() @IsInt() @Min(5_000) @Max(86_400_000) SENDER_CLAIM_TIMEOUT_MS = 120_000;
  /**
   * Part of the claim kept for recording results after the last provider request has ended or timed
   * out (retry tiers and dead letters go to Kafka first, then the rows are written).
   */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(600_000) SENDER_CLAIM_RECORD_MARGIN_MS = 10_000;
  /** How often each replica looks for expired claims (replicas split them with SKIP LOCKED). */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(600_000) SENDER_CLAIM_SWEEP_MS = 5_000;
  /**
   * Messages one process may hold claimed (SENDING) at once: a SIGKILL leaves at most this many
   * UNKNOWN. A message is held from its claim until its result is recorded: with the database near
   * its limit the claim alone takes 60-400 ms and a message is held about a second, so this also
   * caps a process's sends/s near its value (2,000 held the demo there, and its grants went stale
   * waiting for room).
   */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(1_000_000) SENDER_MAX_CLAIMED_MESSAGES = 5_000;
  /**
   * Retry tier delays in percent of the contract's (5 s, 30 s, 2 min, 10 min). Below 100 only for
   * tests and demos that must see a message use up its tiers in seconds (a test hook, not in .env.example).
   */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100) SENDER_RETRY_DELAY_PERCENT = 100;
  /** How often each replica folds run counter deltas into `runs` (how far the run counters trail the rows). */
  @Expose() @ToInt() @IsInt() @Min(10) @Max(60_000) SENDER_COUNTER_FOLD_MS = 100;
  /**
   * How long a finished batch's inbox row (`processed_events`: a batch delivered again is not counted
   * twice) is kept: 0 (forever), or at least the batches topic's retention (7 days), as a copy of a batch
   * can come back while Kafka holds it. Without a limit the table grows by a row per batch sent.
   */
  @Expose()
  @ToInt()
  @ValidateIf((config: SendingConfig) => config.SENDER_FINISHED_BATCH_RETENTION_MS !== 0)
  @IsInt()
  @Min(FINISHED_BATCH_RETENTION_FLOOR_MS, {
    message: `must be 0 (keep forever) or at least ${FINISHED_BATCH_RETENTION_FLOOR_MS} (the batches topic's retention)`,
  })
  @Max(31_536_000_000)
  SENDER_FINISHED_BATCH_RETENTION_MS = 2 * FINISHED_BATCH_RETENTION_FLOOR_MS;
  /** How often each replica deletes finished-batch inbox rows past their retention. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) SENDER_FINISHED_BATCH_PRUNE_TICK_MS = 600_000;
  /** How long a campaign's compiled template is reused before it is read again. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(3_600_000) CAMPAIGN_CONTENT_CACHE_MS = 30_000;
}
