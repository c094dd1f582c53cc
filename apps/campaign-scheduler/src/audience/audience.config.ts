import { Expose } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { ToBool, ToInt } from '@ums/platform';

export class AudienceConfig {
  /** Largest audience file (upload or URL) or opt-out import, counted as its bytes stream in; past it the import fails. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER) AUDIENCE_MAX_BYTES = 2 * 1024 ** 3;
  /** Let URL imports fetch from private, loopback and link-local addresses (internal file servers, tests). */
  @Expose() @ToBool() @IsBoolean() AUDIENCE_URL_ALLOW_PRIVATE = false;
  /** Connect, response-headers and body-idle timeout of a URL import's fetch. */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(600_000) AUDIENCE_URL_TIMEOUT_MS = 30_000;
  /**
   * A RUNNING import whose row nobody touched for this long is marked FAILED: the process running it
   * died. Running imports touch their row every fifth of it, even while their source is quiet.
   */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) AUDIENCE_IMPORT_STALE_MS = 300_000;
  /** Rows per multi-row INSERT IGNORE of audience and opt-out imports (and per progress update). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) AUDIENCE_INSERT_CHUNK_ROWS = 1_000;
}
