import { type RunCounters, RunState, type RunView } from '@ums/contracts';
import { isoOrNull as iso } from '@ums/platform';

/** The API's run view is shared with the operator CLI (libs/contracts/src/api). */
export type { RunView };

export const RUN_COLUMNS = `id, campaign_id, fire_at, state, lease_epoch, lease_owner, attempts, failure_reason, pause_reason, segments, charged,
  checkpoint_cursor, batches_published, batches_finished, checkpoint_at, expanded_at, started_at, finished_at,
  total, pending, sending, sent, delivered, read_count, failed, unknown, skipped, created_at, updated_at`;

/** A `runs` row as RUN_COLUMNS selects it: BIGINT columns (the id, cursor and counters) are strings. */
export interface RunRow extends RunCounterColumns {
  readonly id: string;
  readonly campaign_id: string;
  readonly fire_at: Date;
  readonly state: RunState;
  readonly lease_epoch: number;
  readonly lease_owner: string | null;
  readonly attempts: number;
  readonly failure_reason: string | null;
  readonly pause_reason: string | null;
  /** BIGINT UNSIGNED. */
  readonly segments: string;
  /** BIGINT UNSIGNED. */
  readonly charged: string;
  readonly checkpoint_cursor: string;
  readonly batches_published: number;
  readonly batches_finished: number;
  readonly checkpoint_at: Date | null;
  readonly expanded_at: Date | null;
  readonly started_at: Date | null;
  readonly finished_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export function toRunView(row: RunRow): RunView {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    fireAt: row.fire_at.toISOString(),
    state: row.state,
    leaseEpoch: row.lease_epoch,
    leaseOwner: row.lease_owner,
    attempts: row.attempts,
    failureReason: row.failure_reason,
    pauseReason: row.pause_reason,
    segments: Number(row.segments),
    charged: Number(row.charged),
    checkpoint: {
      cursor: row.checkpoint_cursor,
      batchesPublished: row.batches_published,
      batchesFinished: row.batches_finished,
      at: iso(row.checkpoint_at),
    },
    expandedAt: iso(row.expanded_at),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    counters: runCountersOf(row),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The counter columns of a `runs` row, and of a `run_events` row that copies them (BIGINT: strings). */
export interface RunCounterColumns {
  readonly total: string;
  readonly pending: string;
  readonly sending: string;
  readonly sent: string;
  readonly delivered: string;
  readonly read_count: string;
  readonly failed: string;
  readonly unknown: string;
  readonly skipped: string;
}

export function runCountersOf(row: RunCounterColumns): RunCounters {
  return {
    total: Number(row.total),
    pending: Number(row.pending),
    sending: Number(row.sending),
    sent: Number(row.sent),
    delivered: Number(row.delivered),
    read: Number(row.read_count),
    failed: Number(row.failed),
    unknown: Number(row.unknown),
    skipped: Number(row.skipped),
  };
}
