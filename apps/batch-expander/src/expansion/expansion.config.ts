import { Expose } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class ExpansionConfig {
  /** Recipients per batch on the batches topic (seed 002: about 100). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1000) EXPANDER_BATCH_SIZE = 100;
  /**
   * Batches published together and covered by one checkpoint write. 1 writes a checkpoint per
   * batch; larger steps trade a bigger re-published overlap after a crash for fewer round trips.
   */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100) EXPANDER_BATCHES_PER_STEP = 10;
  /** Backpressure: batches a run may be ahead of what senders finished for it. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100_000) EXPANDER_MAX_BATCHES_AHEAD = 50;
  /** Runs one process expands at once; each waiting run costs nothing but memory. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) EXPANDER_MAX_ACTIVE_RUNS = 500;
  /** How often run states (pause, stop, fencing, sender progress) are read for all active runs, in one query. */
  @Expose() @ToInt() @IsInt() @Min(20) @Max(10_000) EXPANDER_POLL_MS = 250;
  /** Lease owner name; defaults to host, pid and a random suffix (unique per process start). */
  @Expose()
  @IsOptional()
  @Matches(/^[A-Za-z0-9._:-]{1,100}$/, {
    message: 'EXPANDER_INSTANCE_ID must be 1-100 of A-Z a-z 0-9 . _ : -',
  })
  EXPANDER_INSTANCE_ID?: string;
}
