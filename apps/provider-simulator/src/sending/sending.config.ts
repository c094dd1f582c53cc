import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class SendingConfig {
  /**
   * How long a request picked to time out (credential timeoutRate) is held before its
   * connection is closed without an answer; released earlier if the client gives up.
   */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(600_000) SIMULATOR_TIMEOUT_HOLD_MS = 30_000;
}
