import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class StatsConfig {
  /**
   * Message ids whose sends are counted one by one (for duplicate detection), over all
   * credentials; about 100 bytes each. Beyond it sends are still counted, not per id.
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(50_000_000) SIMULATOR_MAX_TRACKED_MESSAGE_IDS = 5_000_000;
}
