import { Expose } from 'class-transformer';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { ToInt } from '@ums/platform';

const DAY_MS = 86_400_000;
/** Ten years: the longest retention either knob takes. */
const MAX_RETENTION_MS = 3_650 * DAY_MS;

/** Message retention: when messages leave the hot `messages` table for `messages_archive`, and how fast. */
export class MessageRetentionConfig {
  /**
   * How long after its run finished (COMPLETED, STOPPED, FAILED) a message stays in `messages`, and how
   * long after its last change a single send that is no longer in flight does; then it is archived.
   * 0 keeps every message in `messages`. At least a day: late delivery reports and retry-failed need
   * the hot rows.
   */
  @Expose()
  @ToInt()
  @ValidateIf((config: MessageRetentionConfig) => config.MESSAGE_RETENTION_MS !== 0)
  @IsInt()
  @Min(DAY_MS, { message: `must be 0 (never archive) or at least ${DAY_MS} (a day)` })
  @Max(MAX_RETENTION_MS)
  MESSAGE_RETENTION_MS = 30 * DAY_MS;
  /** Messages moved per transaction (copied to the archive, then deleted): short statements, short locks. */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(50_000) MESSAGE_ARCHIVE_WINDOW = 5_000;
  /** Pause between two windows, so that archiving a backlog leaves the database to the hot path. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(60_000) MESSAGE_ARCHIVE_PAUSE_MS = 200;
  /** How often a replica looks for messages to archive (one replica archives at a time: a named lock). */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(DAY_MS) MESSAGE_ARCHIVE_TICK_MS = 60_000;
  /** Windows per tick at most: a backlog (a first start on an old table) is worked off over several ticks. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100_000) MESSAGE_ARCHIVE_MAX_WINDOWS = 200;
  /** How long an archived message is kept in `messages_archive` (from its archiving); 0 keeps it for good. */
  @Expose()
  @ToInt()
  @ValidateIf((config: MessageRetentionConfig) => config.MESSAGE_ARCHIVE_RETENTION_MS !== 0)
  @IsInt()
  @Min(DAY_MS, { message: `must be 0 (keep for good) or at least ${DAY_MS} (a day)` })
  @Max(MAX_RETENTION_MS)
  MESSAGE_ARCHIVE_RETENTION_MS = 0;
}
