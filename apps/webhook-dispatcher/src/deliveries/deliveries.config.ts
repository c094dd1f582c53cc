import { Expose, Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsInt, Max, Min } from 'class-validator';
import { ToBool, ToInt } from '@ums/platform';

/** Subscriber webhook delivery settings (webhook-dispatcher), validated once at start-up. */
export class DeliveriesConfig {
  /** Whole request budget per attempt: connect, headers and body (docs/architecture.md, Subscriber webhooks: 5 s). */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(60_000) WEBHOOK_TIMEOUT_MS = 5_000;
  /** Keep-alive connections per subscriber origin. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1_024) WEBHOOK_CONNECTIONS_PER_ORIGIN = 64;
  /** Requests in flight per subscriber: one slow subscriber cannot take every socket and slot. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1_024) WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIBER = 64;
  /** Deliveries waiting in memory per subscriber; beyond, new ones go to the first retry tier (attempt kept). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1_000_000) WEBHOOK_MAX_QUEUED_PER_SUBSCRIBER = 5_000;
  /** Deliveries waiting in memory in all; the event consumers wait (backpressure) above this. */
  @Expose() @ToInt() @IsInt() @Min(100) @Max(10_000_000) WEBHOOK_MAX_QUEUED_TOTAL = 50_000;
  /**
   * Delay of each retry tier (ums.webhook.retry-5s ... -1h), one per tier, in ms: a test hook (not in
   * .env.example). The topics keep their names; tests shorten the waits here (the tier consumer holds
   * each message until its due time).
   */
  @Expose()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value.split(',').map((v) => (v.trim() === '' ? Number.NaN : Number(v)))
      : value,
  )
  @ArrayMinSize(5, { message: 'WEBHOOK_RETRY_DELAYS_MS needs one delay per retry tier (5)' })
  @ArrayMaxSize(5, { message: 'WEBHOOK_RETRY_DELAYS_MS needs one delay per retry tier (5)' })
  @IsInt({ each: true })
  @Min(1, { each: true })
  WEBHOOK_RETRY_DELAYS_MS: number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000];
  /** More failures than this within the window tombstone a subscriber (seed 000). */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1_000_000) WEBHOOK_FAILURE_THRESHOLD = 20;
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(2_592_000_000) WEBHOOK_FAILURE_WINDOW_MS = 86_400_000;
  /** A PENDING delivery not settled by then (its process died) is attempted again by the sweeper. */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(86_400_000) WEBHOOK_PENDING_LEASE_MS = 60_000;
  @Expose() @ToInt() @IsInt() @Min(50) @Max(600_000) WEBHOOK_SWEEP_TICK_MS = 5_000;
  /** How often every replica re-reads the subscribers (state changes made by other replicas). */
  @Expose() @ToInt() @IsInt() @Min(50) @Max(600_000) WEBHOOK_SUBSCRIBER_REFRESH_MS = 1_000;
  /** A dead subscriber is sent a signed probe this often and resurrected when it answers 2xx; 0: never. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(86_400_000) WEBHOOK_PROBE_INTERVAL_MS = 0;
  /** Internal subscribers (http, private hosts, no SSRF check) may be created; off for public deployments. */
  @Expose() @ToBool() @IsBoolean() WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED = false;
  /**
   * DELIVERED rows older than this (created and delivered) are deleted: it bounds the table (up to three
   * rows per message with a status relay; none for deliveries answered at once in a backlog).
   * 0 keeps them forever. Owed (PENDING, RETRYING, MISSED) and DEAD_LETTERED rows are never deleted here.
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(31_536_000_000) WEBHOOK_DELIVERED_RETENTION_MS = 604_800_000;
  /** How often each replica runs the retention pass. */
  @Expose() @ToInt() @IsInt() @Min(50) @Max(86_400_000) WEBHOOK_RETENTION_TICK_MS = 60_000;
  /** How long the previous secret still signs after a rotation. */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(2_592_000_000) WEBHOOK_SECRET_GRACE_MS = 86_400_000;
}
