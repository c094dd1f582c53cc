// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsEnum,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { RunState } from '../enums/run-state.enum';

/** What happened to a run: the state it entered, named from the run's point of view. */
export enum RunLifecycleEvent {
  /** PENDING -> SCHEDULED: its time came and it was handed to the expanders. */
  Scheduled = 'scheduled',
  /** SCHEDULED -> RUNNING: an expander took it. */
  Started = 'started',
  Paused = 'paused',
  /** PAUSED -> RUNNING. */
  Resumed = 'resumed',
  /** Stopped or cancelled by an operator: STOPPED. */
  Stopped = 'stopped',
  /** Expanded, and every message reached a final state. */
  Completed = 'completed',
  /** Out of stale-checkpoint retries: FAILED, with the reason. */
  Failed = 'failed',
  /** A finished run reopened (retry-failed, resend-unknown): RUNNING again. */
  Retried = 'retried',
}

/** A run's messages by state when the event happened (the run row's counters). */
export class RunCountersV1 {
  @IsInt() @Min(0) total!: number;
  @IsInt() @Min(0) pending!: number;
  @IsInt() @Min(0) sending!: number;
  @IsInt() @Min(0) sent!: number;
  @IsInt() @Min(0) delivered!: number;
  @IsInt() @Min(0) read!: number;
  @IsInt() @Min(0) failed!: number;
  @IsInt() @Min(0) unknown!: number;
  @IsInt() @Min(0) skipped!: number;
}

/**
 * A run changed state: one event per transition, keyed by campaign so that a campaign's events keep
 * their order. For downstream services and subscriber webhooks (`run.<event>`).
 */
export class RunLifecycleV1 {
  /** Unique per transition, stable when the same transition is published again. */
  @IsString()
  @Length(1, 200)
  eventId!: string;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  @IsString()
  @Length(1, 64)
  campaignId!: string;

  @Matches(/^\d{1,20}$/, { message: 'runId must be a decimal id' })
  runId!: string;

  @IsEnum(RunLifecycleEvent)
  event!: RunLifecycleEvent;

  /** The state the run entered. */
  @IsEnum(RunState)
  state!: RunState;

  @IsEnum(RunState)
  previousState!: RunState;

  @ValidateNested()
  @Type(() => RunCountersV1)
  counters!: RunCountersV1;

  /** Why the run failed (event `failed`). */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  reason?: string;

  @IsISO8601({ strict: true })
  occurredAt!: string;
}
