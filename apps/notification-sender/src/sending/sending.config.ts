import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class SendingConfig {
  /** A SENDING row claimed longer ago than this becomes UNKNOWN (its sender died between claim and result). */
  @Expose() @ToInt() @IsInt() @Min(5_000) @Max(86_400_000) SENDER_CLAIM_TIMEOUT_MS = 120_000;
  /** How often each replica looks for expired claims (replicas split them with SKIP LOCKED). */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(600_000) SENDER_CLAIM_SWEEP_MS = 5_000;
}
