/**
 * The statements that move messages from `messages` to `messages_archive` (and their provider ids
 * from `message_provider_ids` to `message_provider_ids_archive`), shared by the campaign-scheduler's
 * archiver and the query-plan bench (tools/bench/hot-queries.ts), which checks each one is an index
 * range at 10 million rows. One window is one transaction, READ COMMITTED (no gap locks):
 * lock the window's rows, copy them, delete them.
 */
export interface ArchiveStatement {
  readonly sql: string;
  readonly params: unknown[];
}

/** DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND): a cutoff `ms` in the past, on the server's clock. */
const AGO = 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)';

/**
 * Runs that still have messages in `messages`, after `afterRunId`, in run id order: a loose index scan
 * of idx_messages_run_state (one dive per run), so its cost follows the runs kept hot, not the table.
 */
export function hotRunIdsStatement(afterRunId: bigint, limit: number): ArchiveStatement {
  return {
    sql: `SELECT DISTINCT run_id FROM messages WHERE run_id > ? ORDER BY run_id LIMIT ?`,
    params: [afterRunId, limit],
  };
}

/** Which of `runIds` finished (in `states`) more than `retentionMs` ago: primary-key reads of `runs`. */
export function archivableRunsStatement(
  runIds: readonly bigint[],
  states: readonly string[],
  retentionMs: number,
): ArchiveStatement {
  return {
    sql: `SELECT id, finished_at FROM runs
           WHERE id IN (?) AND state IN (?) AND finished_at < ${AGO} ORDER BY id`,
    params: [runIds, states, retentionMs * 1000],
  };
}

/**
 * The run's row, share-locked, if it is still finished and past the retention: taken first in each
 * window, so a retry-failed (which locks the run for update) either comes before (the run is no longer
 * finished: nothing moves) or after (it sees archived rows and is refused).
 */
export function lockArchivableRunStatement(
  runId: bigint,
  states: readonly string[],
  retentionMs: number,
): ArchiveStatement {
  return {
    sql: `SELECT id FROM runs WHERE id = ? AND state IN (?) AND finished_at < ${AGO} LOCK IN SHARE MODE`,
    params: [runId, states, retentionMs * 1000],
  };
}

/** A window of a run's messages in one state (idx_messages_run_state: one range in id order), locked. */
export function runWindowStatement(
  runId: bigint,
  state: string,
  afterId: bigint,
  limit: number,
): ArchiveStatement {
  return {
    sql: `SELECT id FROM messages WHERE run_id = ? AND state = ? AND id > ? ORDER BY id LIMIT ? FOR UPDATE`,
    params: [runId, state, afterId, limit],
  };
}

/**
 * A window of single sends (run_id NULL) in one settled state, created no later than `maxId` and last
 * changed more than `retentionMs` ago, locked: idx_messages_run_state's (NULL, state) range in id order,
 * cut at `maxId` so that it never reads through the recent single sends.
 */
export function singleSendWindowStatement(
  state: string,
  afterId: bigint,
  maxId: bigint,
  retentionMs: number,
  limit: number,
): ArchiveStatement {
  return {
    sql: `SELECT id FROM messages
           WHERE run_id IS NULL AND state = ? AND id > ? AND id <= ? AND updated_at < ${AGO}
           ORDER BY id LIMIT ? FOR UPDATE`,
    params: [state, afterId, maxId, retentionMs * 1000, limit],
  };
}

/** The first message at or after an id (a primary-key read): the single sends' id boundary bisects with it. */
export function firstMessageAtStatement(id: bigint): ArchiveStatement {
  return { sql: 'SELECT id, created_at FROM messages WHERE id >= ? ORDER BY id LIMIT 1', params: [id] };
}

/** Copies the locked rows, column for column; a row already archived is replaced by the hot one. */
export function copyWindowStatement(columns: readonly string[], ids: readonly bigint[]): ArchiveStatement {
  const list = columns.map((column) => `\`${column}\``).join(', ');
  return {
    sql: `REPLACE INTO messages_archive (${list}, archived_at)
          SELECT ${list}, UTC_TIMESTAMP(3) FROM messages WHERE id IN (?)`,
    params: [ids],
  };
}

/** Copies the window's provider ids. */
export function copyProviderIdsStatement(ids: readonly bigint[]): ArchiveStatement {
  return {
    sql: `REPLACE INTO message_provider_ids_archive (message_id, provider_message_id)
          SELECT message_id, provider_message_id FROM message_provider_ids WHERE message_id IN (?)`,
    params: [ids],
  };
}

/** Deletes the window's provider ids from the hot table. */
export function deleteProviderIdsStatement(ids: readonly bigint[]): ArchiveStatement {
  return { sql: 'DELETE FROM message_provider_ids WHERE message_id IN (?)', params: [ids] };
}

/** Deletes the window's rows from `messages` (all locked by the window's first statement). */
export function deleteWindowStatement(ids: readonly bigint[]): ArchiveStatement {
  return { sql: 'DELETE FROM messages WHERE id IN (?)', params: [ids] };
}

/** Archived messages past the archive's own retention, oldest archived first (idx_messages_archive_archived_at). */
export function expiredArchiveStatement(retentionMs: number, limit: number): ArchiveStatement {
  return {
    sql: `SELECT id FROM messages_archive WHERE archived_at < ${AGO} ORDER BY archived_at LIMIT ?`,
    params: [retentionMs * 1000, limit],
  };
}
