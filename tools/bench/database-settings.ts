import type { MysqlConnectionSettings } from '@ums/platform';
import { type DatabaseQuery, withDatabase } from './database-query';

/**
 * The two InnoDB sizes that decide the database server's disk I/O at this write rate (about 7 KB of
 * redo log per message): the redo log, which InnoDB must checkpoint (flush the dirty pages it covers)
 * before it can reuse it, and the buffer pool, which decides whether the indexes written to stay in
 * memory. docs/operations.md gives what they changed in the pipeline benchmark (the I/O, not the CPU).
 */
export interface DatabaseSizes {
  readonly redoLogMb: number;
  readonly bufferPoolMb: number;
}

/** The sizes docs/operations.md gives for a server whose disk is slow or shared; `--tune-database` sets them. */
export const RECOMMENDED_DATABASE_SIZES: DatabaseSizes = { redoLogMb: 1_024, bufferPoolMb: 1_024 };

/**
 * MySQL 8.0.30 and later size the redo log with innodb_redo_log_capacity (dynamic; its
 * innodb_log_file_size is deprecated and read only at start); MariaDB (dynamic since 10.9) and
 * older MySQL use innodb_log_file_size.
 */
export type RedoLogVariable = 'innodb_redo_log_capacity' | 'innodb_log_file_size';

export function redoLogVariable(variables: ReadonlySet<string>): RedoLogVariable {
  return variables.has('innodb_redo_log_capacity') ? 'innodb_redo_log_capacity' : 'innodb_log_file_size';
}

const MB = 1_048_576;

/** The server's current sizes, in MiB. */
export async function readDatabaseSizes(settings: MysqlConnectionSettings): Promise<DatabaseSizes> {
  return withDatabase(settings, databaseSizes);
}

/** The same, on a connection the caller already holds. */
export async function databaseSizes(query: DatabaseQuery): Promise<DatabaseSizes> {
  const redo = redoLogVariable(await redoVariables(query));
  const [row] = (await query(`SELECT @@innodb_buffer_pool_size AS pool, @@${redo} AS redo`)) as {
    pool: string | number;
    redo: string | number;
  }[];
  return {
    bufferPoolMb: Math.round(Number(row?.pool ?? 0) / MB),
    redoLogMb: Math.round(Number(row?.redo ?? 0) / MB),
  };
}

/**
 * Sets the server's sizes (SET GLOBAL: server-wide, every client of it is affected) and returns
 * what puts the previous ones back. Needs a user with SUPER or SYSTEM_VARIABLES_ADMIN; a server that
 * cannot resize its redo log online (MariaDB before 10.9, MySQL before 8.0.30) refuses, and nothing
 * is left changed.
 */
export async function setDatabaseSizes(
  settings: MysqlConnectionSettings,
  wanted: DatabaseSizes,
): Promise<() => Promise<void>> {
  const before = await readDatabaseSizes(settings);
  await applySizes(settings, wanted).catch(async (error: unknown) => {
    await applySizes(settings, before);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the database server refused the sizes for --tune-database: ${reason}`);
  });
  return () => applySizes(settings, before);
}

async function applySizes(settings: MysqlConnectionSettings, sizes: DatabaseSizes): Promise<void> {
  await withDatabase(settings, async (query) => {
    const redo = redoLogVariable(await redoVariables(query));
    await query(`SET GLOBAL innodb_buffer_pool_size = ?`, [sizes.bufferPoolMb * MB]);
    await query(`SET GLOBAL ${redo} = ?`, [sizes.redoLogMb * MB]);
    // The buffer pool resizes in the background, in chunks: the run should not start half way.
    const deadline = Date.now() + RESIZE_WAIT_MS;
    for (;;) {
      const [row] = (await query(`SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_resize_status'`)) as {
        Value: string;
      }[];
      if (!resizing(row?.Value ?? '')) return;
      if (Date.now() > deadline)
        throw new Error(`the buffer pool was still resizing after ${RESIZE_WAIT_MS} ms: ${row?.Value}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
}

const RESIZE_WAIT_MS = 60_000;

/** Whether a resize status (MariaDB and MySQL word it alike) says a resize is still under way. */
export function resizing(status: string): boolean {
  const text = status.trim();
  return text !== '' && !/^(Completed|Size did not change)/i.test(text);
}

async function redoVariables(query: DatabaseQuery): Promise<Set<string>> {
  const rows = (await query(
    `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_redo_log_capacity', 'innodb_log_file_size')`,
  )) as { Variable_name: string }[];
  return new Set(rows.map((r) => r.Variable_name.toLowerCase()));
}
