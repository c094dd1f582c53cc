import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

/** HTTP clients of the provider adapters and the credential cache. */
export class ProvidersConfig {
  /** Connections of the keep-alive pool to each provider origin (shared by all its credentials). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(4_096) PROVIDER_HTTP_CONNECTIONS = 128;
  /** Longest wait for a provider's response headers, and between two chunks of its body. */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(120_000) PROVIDER_HTTP_TIMEOUT_MS = 10_000;
  @Expose() @ToInt() @IsInt() @Min(100) @Max(60_000) PROVIDER_CONNECT_TIMEOUT_MS = 5_000;
  /** Requests one credential may have in flight at once, over all the batches being sent. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(4_096) PROVIDER_CONCURRENCY_PER_CREDENTIAL = 64;
  /** Larger provider answers are cut here (a 1,000-item bulk answer is about 100 KB). */
  @Expose() @ToInt() @IsInt() @Min(1_024) @Max(64 * 1024 * 1024) PROVIDER_MAX_RESPONSE_BYTES =
    4 * 1024 * 1024;
  /** How long a loaded credential (settings and decrypted secret) is reused before it is read again. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(3_600_000) CREDENTIAL_CACHE_TTL_MS = 30_000;
}
