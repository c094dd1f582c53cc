import { Expose } from 'class-transformer';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { ToInt } from '@ums/platform';

/** Below this a retention is more likely a unit slip (seconds for ms) than a wish. */
const REPLAYED_RETENTION_FLOOR_MS = 3_600_000;

export class DeadLettersConfig {
  /**
   * How long a replayed dead letter is kept after its last replay: 0 (forever), or at least an hour.
   * A replayed entry is handled (back on its topic, or stored again as a new entry if it failed again),
   * so deleting it loses nothing. Never-replayed entries are never deleted automatically.
   */
  @Expose()
  @ToInt()
  @ValidateIf((config: DeadLettersConfig) => config.DEAD_LETTER_REPLAYED_RETENTION_MS !== 0)
  @IsInt()
  @Min(REPLAYED_RETENTION_FLOOR_MS, {
    message: `must be 0 (keep forever) or at least ${REPLAYED_RETENTION_FLOOR_MS} (an hour)`,
  })
  @Max(31_536_000_000)
  DEAD_LETTER_REPLAYED_RETENTION_MS = 2_592_000_000;
  /** How often each replica refreshes the open dead-letter gauge and deletes replayed entries past retention. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) DEAD_LETTER_MAINTENANCE_TICK_MS = 60_000;
}
