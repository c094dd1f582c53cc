import { Injectable } from '@nestjs/common';
import { MessageErrorCode } from '@ums/contracts';
import {
  type ArchiveStatement,
  archivableRunsStatement,
  CodedError,
  copyProviderIdsStatement,
  copyWindowStatement,
  deleteProviderIdsStatement,
  deleteWindowStatement,
  expiredArchiveStatement,
  firstMessageAtStatement,
  hotRunIdsStatement,
  lockArchivableRunStatement,
  runWindowStatement,
  selectRows,
  singleSendWindowStatement,
  type SqlRunner,
  writeRows,
} from '@ums/platform';
import { DataSource } from 'typeorm';
import { archiveColumnsOf, FINISHED_RUN_STATES, type IdProbe } from './message-archive-plan';

interface ColumnRow {
  readonly table_name: string;
  readonly column_name: string;
}
interface IdRow {
  readonly id: string;
}
interface RunIdRow {
  readonly run_id: string;
}
interface ArchivableRunRow {
  readonly id: string;
  readonly finished_at: Date;
}
interface ProbeRow {
  readonly id: string;
  readonly created_at: Date;
}
/** MIN/MAX of an empty table are NULL. */
interface BoundsRow {
  readonly lo: string | null;
  readonly hi: string | null;
}

export interface ArchivableRun {
  readonly runId: bigint;
  readonly finishedAt: Date;
}

/** A window's outcome: rows moved and the last id it locked (the next window starts after it). */
export interface WindowResult {
  readonly moved: number;
  readonly lastId: bigint | undefined;
}

/** Run ids looked up per runs read while listing the runs kept hot. */
const HOT_RUNS_PAGE = 500;

/**
 * The archiver's reads and writes. A window is one READ COMMITTED transaction: lock its rows (record
 * locks only, no gap locks, so inserts and status updates elsewhere in the index carry on), copy them to
 * the archive, delete them; a crash anywhere rolls all of it back, and repeating a window finds nothing
 * left to move.
 */
@Injectable()
export class MessageArchiveRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The columns a window copies (every column of `messages`); refuses when the archive lacks one. */
  async archiveColumns(): Promise<string[]> {
    const rows = await selectRows<ColumnRow>(
      this.dataSource,
      `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('messages', 'messages_archive')
        ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    );
    const of = (table: string) =>
      rows.filter((row) => row.table_name === table).map((row) => row.column_name);
    return archiveColumnsOf(of('messages'), of('messages_archive'));
  }

  /** Runs finished more than `retentionMs` ago that still have messages in `messages`, oldest finish first. */
  async archivableRuns(retentionMs: number): Promise<ArchivableRun[]> {
    const found: ArchivableRun[] = [];
    let after = 0n;
    for (;;) {
      const page = await query<RunIdRow>(this.dataSource, hotRunIdsStatement(after, HOT_RUNS_PAGE));
      const runIds = page.map((row) => BigInt(row.run_id));
      if (runIds.length === 0) break;
      const runs = await query<ArchivableRunRow>(
        this.dataSource,
        archivableRunsStatement(runIds, FINISHED_RUN_STATES, retentionMs),
      );
      found.push(...runs.map((row) => ({ runId: BigInt(row.id), finishedAt: row.finished_at })));
      if (runIds.length < HOT_RUNS_PAGE) break;
      after = runIds[runIds.length - 1] as bigint;
    }
    return found.sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime());
  }

  /** Moves a window of the run's messages in one state; nothing when the run is no longer archivable. */
  async archiveRunWindow(
    columns: readonly string[],
    run: { readonly runId: bigint; readonly state: string; readonly afterId: bigint },
    options: { readonly retentionMs: number; readonly window: number },
  ): Promise<WindowResult> {
    return this.dataSource.transaction('READ COMMITTED', async (manager) => {
      const locked = await query<IdRow>(
        manager,
        lockArchivableRunStatement(run.runId, FINISHED_RUN_STATES, options.retentionMs),
      );
      if (locked.length === 0) return { moved: 0, lastId: undefined };
      const rows = await query<IdRow>(
        manager,
        runWindowStatement(run.runId, run.state, run.afterId, options.window),
      );
      return moveLocked(manager, columns, rows);
    });
  }

  /** Moves a window of settled single sends in one state, up to id `maxId`. */
  async archiveSingleSendWindow(
    columns: readonly string[],
    window: { readonly state: string; readonly afterId: bigint; readonly maxId: bigint },
    options: { readonly retentionMs: number; readonly window: number },
  ): Promise<WindowResult> {
    return this.dataSource.transaction('READ COMMITTED', async (manager) => {
      const rows = await query<IdRow>(
        manager,
        singleSendWindowStatement(
          window.state,
          window.afterId,
          window.maxId,
          options.retentionMs,
          options.window,
        ),
      );
      return moveLocked(manager, columns, rows);
    });
  }

  /** The smallest and largest message ids (primary-key ends), undefined for an empty table. */
  async idBounds(): Promise<{ lo: bigint; hi: bigint } | undefined> {
    const [row] = await selectRows<BoundsRow>(
      this.dataSource,
      'SELECT MIN(id) AS lo, MAX(id) AS hi FROM messages',
    );
    return row?.lo == null || row.hi == null ? undefined : { lo: BigInt(row.lo), hi: BigInt(row.hi) };
  }

  /** The first message at or after `id`. */
  async firstMessageAt(id: bigint): Promise<IdProbe | undefined> {
    const [row] = await query<ProbeRow>(this.dataSource, firstMessageAtStatement(id));
    return row === undefined ? undefined : { id: BigInt(row.id), createdAt: row.created_at };
  }

  /** Deletes up to `window` archived messages (and their provider ids) archived more than `retentionMs` ago. */
  async pruneArchive(retentionMs: number, window: number): Promise<number> {
    return this.dataSource.transaction('READ COMMITTED', async (manager) => {
      const rows = await query<IdRow>(manager, expiredArchiveStatement(retentionMs, window));
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => BigInt(row.id));
      await writeRows(manager, 'DELETE FROM message_provider_ids_archive WHERE message_id IN (?)', [ids]);
      const result = await writeRows(manager, 'DELETE FROM messages_archive WHERE id IN (?)', [ids]);
      return result.affectedRows;
    });
  }
}

/** Copies the locked rows and their provider ids to the archive, then deletes them from the hot tables. */
async function moveLocked(
  manager: SqlRunner,
  columns: readonly string[],
  rows: readonly IdRow[],
): Promise<WindowResult> {
  if (rows.length === 0) return { moved: 0, lastId: undefined };
  const ids = rows.map((row) => BigInt(row.id));
  await write(manager, copyWindowStatement(columns, ids));
  await write(manager, copyProviderIdsStatement(ids));
  await write(manager, deleteProviderIdsStatement(ids));
  const deleted = await write(manager, deleteWindowStatement(ids));
  // Every row was locked by this transaction: each must be deleted, or the copy is rolled back too.
  if (deleted !== ids.length) {
    throw new CodedError(
      MessageErrorCode.ArchiveRefused,
      `archive window deleted ${deleted} of ${ids.length} locked messages; rolled back`,
    );
  }
  return { moved: deleted, lastId: ids[ids.length - 1] };
}

function query<Row extends object>(runner: SqlRunner, statement: ArchiveStatement): Promise<Row[]> {
  return selectRows<Row>(runner, statement.sql, statement.params);
}

async function write(runner: SqlRunner, statement: ArchiveStatement): Promise<number> {
  return (await writeRows(runner, statement.sql, statement.params)).affectedRows;
}
