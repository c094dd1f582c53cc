import { IsEnum, IsInt, IsISO8601, IsString, Length, Matches, Min } from 'class-validator';

export enum RunRequestReason {
  Scheduled = 'scheduled',
  Manual = 'manual',
  Resumed = 'resumed',
  StaleCheckpoint = 'stale-checkpoint',
  RetryFailed = 'retry-failed',
  /** Resend UNKNOWN messages, on an operator's explicit request. */
  ResendUnknown = 'resend-unknown',
  /** An expander shutting down handed the run over to another replica. */
  Handoff = 'handoff',
}

/** Asks a batch expander to (re)take a run's lease at `leaseEpoch` and expand it from its checkpoint. */
export class RunRequestedV1 {
  @Matches(/^\d{1,20}$/, { message: 'runId must be a decimal id' })
  runId!: string;

  @IsString()
  @Length(1, 64)
  campaignId!: string;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  @IsInt()
  @Min(0)
  leaseEpoch!: number;

  @IsEnum(RunRequestReason)
  reason!: RunRequestReason;

  @IsISO8601({ strict: true })
  requestedAt!: string;
}
