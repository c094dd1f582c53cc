import type { RunCounters } from '@ums/contracts';
import type { SqlQueryable } from './message-states';

/** A run's row as the services keep it: its state, counters (as the API shows them) and batch progress. */
export interface RunRow extends RunCounters {
  readonly state: string;
  readonly attempts: number;
  readonly batchesPublished: number;
  readonly batchesFinished: number;
}

/** The `runs` columns runRowOf selects: the counters are BIGINT (strings), the rest INT UNSIGNED (numbers). */
interface RunCountersRow {
  readonly state: string;
  readonly total: string;
  readonly pending: string;
  readonly sending: string;
  readonly sent: string;
  readonly delivered: string;
  readonly read_count: string;
  readonly failed: string;
  readonly unknown: string;
  readonly skipped: string;
  readonly attempts: number;
  readonly batches_published: number;
  readonly batches_finished: number;
}

/** Reads a run's row (the counters folded so far, not counted from the message rows); a missing run reads as zeros. */
export async function runRowOf(db: SqlQueryable, runId: string): Promise<RunRow> {
  const rows = (await db.query(
    `SELECT state, total, pending, sending, sent, delivered, read_count, failed, unknown, skipped, attempts,
            batches_published, batches_finished
       FROM runs WHERE id = ?`,
    [runId],
  )) as RunCountersRow[];
  const r: Partial<RunCountersRow> = rows[0] ?? {};
  const n = (value: string | number | undefined): number => Number(value ?? 0);
  return {
    state: String(r.state),
    total: n(r.total),
    pending: n(r.pending),
    sending: n(r.sending),
    sent: n(r.sent),
    delivered: n(r.delivered),
    read: n(r.read_count),
    failed: n(r.failed),
    unknown: n(r.unknown),
    skipped: n(r.skipped),
    attempts: n(r.attempts),
    batchesPublished: n(r.batches_published),
    batchesFinished: n(r.batches_finished),
  };
}
