import type { MysqlConnectionSettings } from '@ums/platform';
import { withDatabase } from './database-query';

/**
 * Server-wide status counters of the database server, read before and after the pipeline runs: what
 * the pipeline asked of it (statements, commits, bytes in and out, rows written) and what that cost
 * it in redo log. Server-wide: another client of the same server in that time counts too.
 */
export const DATABASE_COUNTERS = [
  'Questions',
  'Com_commit',
  'Bytes_received',
  'Bytes_sent',
  // Row writes, updates and deletes asked of the storage engines (MariaDB 10.11 has no Innodb_rows_*).
  'Handler_write',
  'Handler_update',
  'Handler_delete',
  'Innodb_os_log_written',
  // Pages read from disk because the buffer pool did not hold them, and pages flushed to make room or
  // to let the redo log be reused: what a small buffer pool or redo log costs (docs/operations.md).
  'Innodb_buffer_pool_reads',
  'Innodb_buffer_pool_pages_flushed',
] as const;

export type DatabaseCounter = (typeof DATABASE_COUNTERS)[number];
export type DatabaseCounterValues = Partial<Record<DatabaseCounter, number>>;

export interface DatabaseUse {
  /** Counter increases over the run; a counter the server does not have is left out. */
  readonly total: DatabaseCounterValues;
  /** The same per message, rounded to two decimals. */
  readonly perMessage: DatabaseCounterValues;
}

export async function readDatabaseCounters(
  settings: MysqlConnectionSettings,
): Promise<DatabaseCounterValues> {
  const rows = (await withDatabase(settings, (query) =>
    query(`SHOW GLOBAL STATUS WHERE Variable_name IN (?)`, [[...DATABASE_COUNTERS]]),
  )) as { Variable_name: string; Value: string }[];
  return parseCounters(rows);
}

/** The counters among SHOW GLOBAL STATUS rows (names compared without case, values as numbers). */
export function parseCounters(
  rows: readonly { Variable_name: string; Value: string }[],
): DatabaseCounterValues {
  const values: DatabaseCounterValues = {};
  for (const name of DATABASE_COUNTERS) {
    const row = rows.find((r) => r.Variable_name.toLowerCase() === name.toLowerCase());
    const value = row === undefined ? NaN : Number(row.Value);
    if (Number.isFinite(value)) values[name] = value;
  }
  return values;
}

/** Increases from `before` to `after`, in all and per message. */
export function databaseUse(
  before: DatabaseCounterValues,
  after: DatabaseCounterValues,
  messages: number,
): DatabaseUse {
  const total: DatabaseCounterValues = {};
  const perMessage: DatabaseCounterValues = {};
  for (const name of DATABASE_COUNTERS) {
    const from = before[name];
    const to = after[name];
    if (from === undefined || to === undefined) continue;
    total[name] = to - from;
    if (messages > 0) perMessage[name] = Math.round(((to - from) / messages) * 100) / 100;
  }
  return { total, perMessage };
}
