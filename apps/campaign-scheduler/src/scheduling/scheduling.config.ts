import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class SchedulingConfig {
  /** How often each replica looks for due cron fires and due runs (replicas split work by SKIP LOCKED). */
  @Expose() @ToInt() @IsInt() @Min(50) @Max(60_000) SCHEDULER_TICK_MS = 1_000;
  /** Rows taken per statement and tick. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(10_000) SCHEDULER_BATCH = 100;
  /**
   * How often a replica looks for run lifecycle events to publish (one replica relays at a time): the
   * longest a committed transition waits before it is on `ums.campaign.lifecycle.v1`.
   */
  @Expose() @ToInt() @IsInt() @Min(20) @Max(60_000) RUN_EVENTS_RELAY_MS = 250;
}
