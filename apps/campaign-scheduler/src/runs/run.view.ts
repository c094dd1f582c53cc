import { RunState } from '@ums/contracts';
import { isoOrNull as iso } from '@ums/platform';

/** A run as the API shows it: state, checkpoint and progress counters. */
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
  readonly counters: {
    readonly total: number;
    readonly pending: number;
    readonly sending: number;
    readonly sent: number;
    readonly delivered: number;
    readonly read: number;
    readonly failed: number;
    readonly unknown: number;
    readonly skipped: number;
  };
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const RUN_COLUMNS = `id, campaign_id, fire_at, state, lease_epoch, lease_owner, attempts, failure_reason,
  checkpoint_cursor, batches_published, batches_finished, checkpoint_at, expanded_at, started_at, finished_at,
  total, pending, sending, sent, delivered, read_count, failed, unknown, skipped, created_at, updated_at`;

type Row = Record<string, unknown>;

export function toRunView(row: Row): RunView {
  const n = (key: string): number => Number(row[key]);
  return {
    id: String(row['id']),
    campaignId: String(row['campaign_id']),
    fireAt: iso(row['fire_at']) as string,
    state: row['state'] as RunState,
    leaseEpoch: n('lease_epoch'),
    leaseOwner: row['lease_owner'] === null ? null : String(row['lease_owner']),
    attempts: n('attempts'),
    failureReason: row['failure_reason'] === null ? null : String(row['failure_reason']),
    checkpoint: {
      cursor: String(row['checkpoint_cursor']),
      batchesPublished: n('batches_published'),
      batchesFinished: n('batches_finished'),
      at: iso(row['checkpoint_at']),
    },
    expandedAt: iso(row['expanded_at']),
    startedAt: iso(row['started_at']),
    finishedAt: iso(row['finished_at']),
    counters: {
      total: n('total'),
      pending: n('pending'),
      sending: n('sending'),
      sent: n('sent'),
      delivered: n('delivered'),
      read: n('read_count'),
      failed: n('failed'),
      unknown: n('unknown'),
      skipped: n('skipped'),
    },
    createdAt: iso(row['created_at']) as string,
    updatedAt: iso(row['updated_at']) as string,
  };
}
