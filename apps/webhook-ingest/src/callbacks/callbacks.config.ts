import { Expose, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { ToBool, ToInt } from '@ums/platform';

const MIB = 1_048_576;

/** The largest body any intake route accepts. */
export function largestBodyLimit(config: CallbacksConfig): number {
  return Math.max(
    config.INGEST_WHATSAPP_MAX_BODY_BYTES,
    config.INGEST_TWILIO_MAX_BODY_BYTES,
    config.INGEST_MITTO_MAX_BODY_BYTES,
    config.INGEST_SIMULATOR_MAX_BODY_BYTES,
    config.INGEST_SES_MAX_BODY_BYTES,
  );
}

// Every body a route accepts must fit in the budget, or the largest callbacks could never be taken.
const FitsLargestBody = (): PropertyDecorator =>
  ValidateBy({
    name: 'fitsLargestBody',
    validator: {
      validate: (value: unknown, args) =>
        typeof value === 'number' && value >= largestBodyLimit(args?.object as CallbacksConfig),
      defaultMessage: () => 'INGEST_MAX_INFLIGHT_BYTES must be at least the largest INGEST_*_MAX_BODY_BYTES',
    },
  });

/** Webhook ingest settings (validated once at start-up). */
export class CallbacksConfig {
  /** A publish not acknowledged by Kafka within this answers 503, so the provider retries. */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(60_000) INGEST_PUBLISH_TIMEOUT_MS = 5_000;

  /** How long a credential's verification secrets are cached (0: read the row every time). */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(3_600_000) INGEST_CREDENTIAL_CACHE_TTL_MS = 30_000;

  // Largest raw body per route: Meta batches many statuses per post (several MB); the others post one.
  @Expose() @ToInt() @IsInt() @Min(1024) @Max(64 * MIB) INGEST_WHATSAPP_MAX_BODY_BYTES = 8 * MIB;
  @Expose() @ToInt() @IsInt() @Min(1024) @Max(64 * MIB) INGEST_TWILIO_MAX_BODY_BYTES = 64 * 1024;
  @Expose() @ToInt() @IsInt() @Min(1024) @Max(64 * MIB) INGEST_MITTO_MAX_BODY_BYTES = 64 * 1024;
  @Expose() @ToInt() @IsInt() @Min(1024) @Max(64 * MIB) INGEST_SIMULATOR_MAX_BODY_BYTES = 8 * MIB;
  @Expose() @ToInt() @IsInt() @Min(1024) @Max(64 * MIB) INGEST_SES_MAX_BODY_BYTES = 256 * 1024;

  /**
   * Callback body bytes the process holds at once, over all requests (declared lengths are taken
   * before a body is read, chunked bodies as they stream). A callback beyond it is answered 503 with
   * Retry-After, unread, so a flood of large posts cannot exhaust the memory.
   */
  @Expose()
  @ToInt()
  @IsInt()
  @Max(1024 * MIB)
  @FitsLargestBody()
  INGEST_MAX_INFLIGHT_BYTES = 32 * MIB;

  /**
   * Hosts SNS certificate and subscribe URLs may name (a regular expression). Only the default,
   * sns.<region>.amazonaws.com, belongs in production; tests point it at a local server (a test hook,
   * not in .env.example).
   */
  @Expose()
  @IsString()
  @MaxLength(256)
  @Matches(/^\^.*\$$/, { message: 'INGEST_SNS_HOST_PATTERN must be an anchored regular expression (^...$)' })
  INGEST_SNS_HOST_PATTERN = '^sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?$';

  /** Allow plain http for SNS certificate and subscribe URLs (a local test server only: a test hook). */
  @Expose() @ToBool() @IsBoolean() INGEST_SNS_ALLOW_HTTP = false;

  /** Time allowed to fetch an SNS signing certificate or confirm a subscription. */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(60_000) INGEST_SNS_FETCH_TIMEOUT_MS = 5_000;

  /**
   * The public origin providers call (e.g. https://hooks.example.com), for Twilio signatures that
   * cover the URL exactly as Twilio called it. Unset: the request's own scheme and host (with
   * X-Forwarded-Proto/Host from a trusted proxy).
   */
  @Expose()
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @Matches(/^[^?#]*[^/?#]$/, { message: 'INGEST_PUBLIC_BASE_URL must have no query, fragment or final /' })
  INGEST_PUBLIC_BASE_URL?: string;
}
