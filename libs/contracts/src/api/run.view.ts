import type { RunState } from '../enums/run-state.enum';

/** A run's messages by state. */
export interface RunCounters {
  readonly total: number;
  readonly pending: number;
  readonly sending: number;
  readonly sent: number;
  readonly delivered: number;
  readonly read: number;
  readonly failed: number;
  readonly unknown: number;
  readonly skipped: number;
}

/** A run as the campaign API shows it: state, checkpoint and progress counters. */
export interface RunView {
  readonly id: string;
  readonly campaignId: string;
  readonly fireAt: string;
  readonly state: RunState;
  readonly leaseEpoch: number;
  readonly leaseOwner: string | null;
  readonly attempts: number;
  readonly failureReason: string | null;
  readonly checkpoint: {
    readonly cursor: string;
    readonly batchesPublished: number;
    readonly batchesFinished: number;
    readonly at: string | null;
  };
  readonly expandedAt: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly counters: RunCounters;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** GET /v1/campaigns/:id/runs. */
export interface RunList {
  readonly items: readonly RunView[];
}

/** The answer to an operator action on a run. */
export interface RunActionResult {
  readonly run: RunView;
  /** Messages put back to PENDING (retry-failed, resend-unknown). */
  readonly requeued?: number;
}
