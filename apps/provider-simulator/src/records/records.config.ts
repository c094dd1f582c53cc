import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class RecordsConfig {
  /**
   * Accepted sends kept for status lookups (about 250 bytes each); past this, lookups of a
   * credential that lost some answer "not tracked" instead of "never received".
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(50_000_000) SIMULATOR_MAX_RECORDED_MESSAGES = 1_000_000;
}
