import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class CallbacksConfig {
  /** Due callbacks are gathered and posted this often (Meta and native batch them per post). */
  @Expose() @ToInt() @IsInt() @Min(5) @Max(10_000) SIMULATOR_CALLBACK_FLUSH_MS = 100;
  /** Statuses per batched post (Meta webhook, native events array). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) SIMULATOR_CALLBACK_BATCH_SIZE = 500;
  /** Attempts per post, the first included; failed posts are retried with doubling delays. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(20) SIMULATOR_CALLBACK_MAX_ATTEMPTS = 4;
  @Expose() @ToInt() @IsInt() @Min(10) @Max(600_000) SIMULATOR_CALLBACK_RETRY_BASE_MS = 500;
  @Expose() @ToInt() @IsInt() @Min(100) @Max(120_000) SIMULATOR_CALLBACK_TIMEOUT_MS = 5_000;
  /** Connections per callback origin (undici Pool). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1024) SIMULATOR_CALLBACK_CONNECTIONS = 32;
  /** Callbacks waiting or in flight; beyond this new ones are dropped (and counted), so memory stays bounded. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(50_000_000) SIMULATOR_CALLBACK_MAX_PENDING = 2_000_000;
}
