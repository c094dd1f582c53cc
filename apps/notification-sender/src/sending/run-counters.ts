import { MessageStatus } from '@ums/contracts';
import { selectRows, type SqlRunner, writeRows } from '@ums/platform';

/** The runs column that counts messages in each state. */
const COUNTER: Readonly<Partial<Record<MessageStatus, CounterColumn>>> = {
  [MessageStatus.Pending]: 'pending',
  [MessageStatus.Sending]: 'sending',
  [MessageStatus.Sent]: 'sent',
  [MessageStatus.Delivered]: 'delivered',
  [MessageStatus.Read]: 'read_count',
  [MessageStatus.Failed]: 'failed',
  [MessageStatus.Unknown]: 'unknown',
  [MessageStatus.Skipped]: 'skipped',
};

/** Columns shared by `runs` and `run_counter_deltas`. */
const COLUMNS = [
  'pending',
  'sending',
  'sent',
  'delivered',
  'read_count',
  'failed',
  'unknown',
  'skipped',
  'batches_finished',
  // Totals rather than states: SMS segments handed to the provider, credits the run's messages hold.
  'segments',
  'charged',
] as const;
type CounterColumn = (typeof COLUMNS)[number];
type Deltas = Map<CounterColumn, number>;

/** A `run_counter_deltas` row: its counters are INT (signed deltas), `charged` a BIGINT (a string). */
type DeltaRow = { readonly id: string; readonly run_id: string } & Readonly<
  Record<CounterColumn, number | string>
>;

/** A run's counters as `runs` holds them: BIGINT UNSIGNED, but `batches_finished` INT UNSIGNED. */
type RunCountersRow = { readonly id: string; readonly batches_finished: number } & Readonly<
  Record<Exclude<CounterColumn, 'batches_finished'>, string>
>;

export interface CounterMove {
  readonly runId: string | null;
  readonly from: MessageStatus;
  readonly to: MessageStatus;
}

/** Changes to a run's totals: segments handed to the provider, credits held (signed). */
export interface RunTotals {
  readonly segments?: number;
  readonly charged?: number;
}

/**
 * Moves run counters for a set of transitions, in the caller's transaction: one delta row per run
 * in `run_counter_deltas` (no lock on the hot `runs` row; see the migration), folded into `runs`
 * by foldCounterDeltas. A reader of `runs` sees every committed move once it is folded.
 */
export async function moveCounters(
  manager: SqlRunner,
  moves: readonly CounterMove[],
  totals: ReadonlyMap<string, RunTotals> = new Map(),
): Promise<void> {
  const perRun = new Map<string, Deltas>();
  for (const [runId, total] of totals) {
    perRun.set(
      runId,
      new Map<CounterColumn, number>([
        ['segments', total.segments ?? 0],
        ['charged', total.charged ?? 0],
      ]),
    );
  }
  for (const move of moves) {
    if (move.runId === null || move.from === move.to) continue;
    const deltas = perRun.get(move.runId) ?? new Map<CounterColumn, number>();
    const from = COUNTER[move.from];
    const to = COUNTER[move.to];
    if (from !== undefined) deltas.set(from, (deltas.get(from) ?? 0) - 1);
    if (to !== undefined) deltas.set(to, (deltas.get(to) ?? 0) + 1);
    perRun.set(move.runId, deltas);
  }
  await insertDeltas(manager, perRun);
}

/** Counts one finished batch of a run (the expander's backpressure), as a delta row like moveCounters. */
export async function countFinishedBatch(manager: SqlRunner, runId: string): Promise<void> {
  await insertDeltas(manager, new Map([[runId, new Map<CounterColumn, number>([['batches_finished', 1]])]]));
}

async function insertDeltas(manager: SqlRunner, perRun: ReadonlyMap<string, Deltas>): Promise<void> {
  const rows = [...perRun].filter(([, deltas]) => [...deltas.values()].some((d) => d !== 0));
  if (rows.length === 0) return;
  await writeRows(
    manager,
    `INSERT INTO run_counter_deltas (run_id, ${COLUMNS.join(', ')})
     VALUES ${rows.map(() => `(?, ${COLUMNS.map(() => '?').join(', ')})`).join(', ')}`,
    rows.flatMap(([runId, deltas]) => [runId, ...COLUMNS.map((column) => deltas.get(column) ?? 0)]),
  );
}

/** A counter a fold would have taken below zero: a move applied before its cause, i.e. a bug. */
export interface ClampedCounter {
  readonly runId: string;
  readonly column: string;
  readonly value: number;
  readonly delta: number;
}

export interface FoldResult {
  readonly folded: number;
  readonly clamped: readonly ClampedCounter[];
}

/**
 * Applies up to `limit` of the oldest committed deltas to `runs` and deletes them, in one
 * transaction; returns how many were folded. Run by one folder at a time (the caller holds a named
 * lock), READ COMMITTED (record locks only). A delta row held by an open transaction is skipped;
 * nothing committed after it depends on it (a record is written only after its claim committed),
 * so applying the oldest committed rows never applies an effect before its cause. Two folders side
 * by side broke that: one could apply a record's decrement while the other still held the claim's
 * increment, and the clamp at zero then lost it. A counter that would still go below zero is
 * clamped and reported.
 */
export async function foldCounterDeltas(manager: SqlRunner, limit: number): Promise<FoldResult> {
  const rows = await selectRows<DeltaRow>(
    manager,
    `SELECT id, run_id, ${COLUMNS.join(', ')} FROM run_counter_deltas ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  if (rows.length === 0) return { folded: 0, clamped: [] };
  const perRun = deltasPerRun(rows);
  // Delete first, so the hot `runs` rows are locked last and for the shortest time.
  await writeRows(manager, 'DELETE FROM run_counter_deltas WHERE id IN (?)', [rows.map((row) => row.id)]);
  // Locked in id order (no deadlock with other writers of several runs) and read, to see any clamp.
  const current = await selectRows<RunCountersRow>(
    manager,
    `SELECT id, ${COLUMNS.join(', ')} FROM runs WHERE id IN (?) ORDER BY id FOR UPDATE`,
    [[...perRun.keys()]],
  );
  const clamped: ClampedCounter[] = [];
  for (const run of current) {
    const runId = run.id;
    const parts = [...(perRun.get(runId) ?? [])].filter(([, d]) => d !== 0);
    if (parts.length === 0) continue;
    for (const [column, delta] of parts) {
      const value = Number(run[column]);
      if (value + delta < 0) clamped.push({ runId, column, value, delta });
    }
    // Counters are unsigned: signed arithmetic, clamped at zero (a counter never goes below its rows).
    await writeRows(
      manager,
      `UPDATE runs SET ${parts.map(([c]) => `${c} = GREATEST(CAST(${c} AS SIGNED) + ?, 0)`).join(', ')},
              updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [...parts.map(([, d]) => d), runId],
    );
  }
  return { folded: rows.length, clamped };
}

/** The delta rows summed per run. */
function deltasPerRun(rows: readonly DeltaRow[]): Map<string, Deltas> {
  const perRun = new Map<string, Deltas>();
  for (const row of rows) {
    const deltas = perRun.get(row.run_id) ?? new Map<CounterColumn, number>();
    for (const column of COLUMNS) deltas.set(column, (deltas.get(column) ?? 0) + Number(row[column]));
    perRun.set(row.run_id, deltas);
  }
  return perRun;
}
