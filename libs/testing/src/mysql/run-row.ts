import type { SqlQueryable } from './message-states';

/** A run's row as the services keep it: its state, counters and batch progress. */
export interface RunRow {
  readonly state: string;
  readonly total: number;
  readonly pending: number;
  readonly sending: number;
  readonly sent: number;
  readonly delivered: number;
  readonly read: number;
  readonly failed: number;
  readonly unknown: number;
  readonly skipped: number;
  readonly attempts: number;
  readonly batchesPublished: number;
  readonly batchesFinished: number;
}

/** Reads a run's row (the counters folded so far, not counted from the message rows). */
export async function runRowOf(db: SqlQueryable, runId: string): Promise<RunRow> {
  const rows = (await db.query(
    `SELECT state, total, pending, sending, sent, delivered, read_count, failed, unknown, skipped, attempts,
            batches_published, batches_finished
       FROM runs WHERE id = ?`,
    [runId],
  )) as Record<string, unknown>[];
  const r = rows[0] ?? {};
  const n = (column: string): number => Number(r[column] ?? 0);
  return {
    state: String(r['state']),
    total: n('total'),
    pending: n('pending'),
    sending: n('sending'),
    sent: n('sent'),
    delivered: n('delivered'),
    read: n('read_count'),
    failed: n('failed'),
    unknown: n('unknown'),
    skipped: n('skipped'),
    attempts: n('attempts'),
    batchesPublished: n('batches_published'),
    batchesFinished: n('batches_finished'),
  };
}
