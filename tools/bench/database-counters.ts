import type { MysqlConnectionSettings } from '@ums/platform';
import { type DatabaseQuery, withDatabase } from './database-query';

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
  return withDatabase(settings, countersThrough);
}

/** The counters, read through a connection the caller holds. */
export async function countersThrough(query: DatabaseQuery): Promise<DatabaseCounterValues> {
  const rows = (await query(`SHOW GLOBAL STATUS WHERE Variable_name IN (?)`, [[...DATABASE_COUNTERS]])) as {
    Variable_name: string;
    Value: string;
  }[];
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

/** Rows a table's writes changed, and the same times the indexes each change touched (MariaDB's userstat). */
export interface TableWrites {
  readonly rowsChanged: number;
  readonly rowsChangedXIndexes: number;
}

/** A row of MariaDB's `information_schema.TABLE_STATISTICS` (BIGINT columns: strings or numbers). */
export interface TableStatisticsRow {
  readonly TABLE_NAME: string;
  readonly ROWS_CHANGED: number | string;
  readonly ROWS_CHANGED_X_INDEXES: number | string;
}

/**
 * Turns on MariaDB's per-table statistics (`userstat`) for the run and returns how to read them and
 * put the setting back. `settings` are an administrator's; undefined where the server has none (MySQL 8) or the user may not set it.
 */
export async function startTableWrites(
  settings: MysqlConnectionSettings,
  schema: string,
): Promise<{ read: () => Promise<Record<string, TableWrites>>; restore: () => Promise<void> } | undefined> {
  const previous = await withDatabase(settings, async (query) => {
    try {
      const [row] = (await query('SELECT @@GLOBAL.userstat AS on_before')) as {
        on_before: number | string;
      }[];
      await query('SET GLOBAL userstat = 1');
      await query('FLUSH TABLE_STATISTICS');
      return Number(row?.on_before ?? 0);
    } catch (error: unknown) {
      // No such variable (MySQL 8) or no privilege to set it: the breakdown is left out.
      if (isErrno(error, ER_UNKNOWN_SYSTEM_VARIABLE) || isErrno(error, ER_SPECIFIC_ACCESS_DENIED))
        return undefined;
      throw error;
    }
  });
  if (previous === undefined) return undefined;
  return {
    read: async () =>
      tableWritesOf(
        (await withDatabase(settings, (query) =>
          query(
            `SELECT TABLE_NAME, ROWS_CHANGED, ROWS_CHANGED_X_INDEXES FROM information_schema.TABLE_STATISTICS
              WHERE TABLE_SCHEMA = ?`,
            [schema],
          ),
        )) as TableStatisticsRow[],
      ),
    restore: () =>
      withDatabase(settings, (query) => query(`SET GLOBAL userstat = ${previous}`)).then(() => undefined),
  };
}

const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;
const ER_SPECIFIC_ACCESS_DENIED = 1227;

function isErrno(error: unknown, errno: number): boolean {
  return typeof error === 'object' && error !== null && (error as { errno?: unknown }).errno === errno;
}

/** Per table, sorted by index-weighted changes, largest first. */
export function tableWritesOf(rows: readonly TableStatisticsRow[]): Record<string, TableWrites> {
  return Object.fromEntries(
    rows
      .map(
        (r) =>
          [
            r.TABLE_NAME,
            { rowsChanged: Number(r.ROWS_CHANGED), rowsChangedXIndexes: Number(r.ROWS_CHANGED_X_INDEXES) },
          ] as const,
      )
      .sort(([, a], [, b]) => b.rowsChangedXIndexes - a.rowsChangedXIndexes),
  );
}

/** The same per message, rounded to two decimals. */
export function tableWritesPerMessage(
  writes: Readonly<Record<string, TableWrites>>,
  messages: number,
): Record<string, TableWrites> {
  const round = (n: number): number => Math.round((n / Math.max(messages, 1)) * 100) / 100;
  return Object.fromEntries(
    Object.entries(writes).map(([table, w]) => [
      table,
      { rowsChanged: round(w.rowsChanged), rowsChangedXIndexes: round(w.rowsChangedXIndexes) },
    ]),
  );
}
