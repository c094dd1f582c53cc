import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class StatusRefreshReadConfig {
  /**
   * A SENT row claimed longer ago than this counts as "sent without callback" in a run's status-refresh
   * answer: set it to the senders' STATUS_REFRESH_SENT_AFTER_MS (the same key, so one value serves both).
   */
  @Expose() @ToInt() @IsInt() @Min(60_000) @Max(604_800_000) STATUS_REFRESH_SENT_AFTER_MS = 3_600_000;
}
