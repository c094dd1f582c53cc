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
  /** Why a sender paused the run (CREDITS_EXHAUSTED, QUOTA_EXHAUSTED); null otherwise. */
  readonly pauseReason: string | null;
  /** SMS segments of the run's messages handed to the provider (1 per message on other channels). */
  readonly segments: number;
  /** Credits the run's messages hold reserved (refunded ones excluded). */
  readonly charged: number;
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

/** One state change of a run, as `GET /v1/campaigns/:id/runs/:runId/events` lists it (oldest first). */
export interface RunEventView {
  /** Increasing with each event of the run: `?after=` takes the last one seen. */
  readonly id: string;
  /** The lifecycle event's id on `ums.campaign.lifecycle.v1` (and subscribers' `webhook-id`). */
  readonly eventId: string;
  /** A RunLifecycleEvent: scheduled, started, paused, resumed, stopped, completed, failed or retried. */
  readonly event: string;
  readonly state: RunState;
  readonly previousState: RunState;
  readonly reason: string | null;
  readonly counters: RunCounters;
  readonly occurredAt: string;
}

/** GET /v1/campaigns/:id/runs/:runId/events. */
export interface RunEventList {
  readonly items: readonly RunEventView[];
}
