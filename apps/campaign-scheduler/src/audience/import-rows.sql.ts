import type { AudienceImportView, ImportState, RejectedLine, RejectView } from '@ums/contracts';
import { isoOrNull, selectRows, type TenantFilter, writeRows } from '@ums/platform';
import type { DataSource } from 'typeorm';

/** The tables that hold imports: a campaign's audience imports and a contact list's. */
export type ImportTable = 'audience_imports' | 'contact_list_imports';

/** The tables each import table goes with; the only names ImportRows puts into its SQL. */
const TABLES = {
  audience_imports: {
    rejects: 'audience_rejects',
    contacts: 'contacts',
    owners: 'campaigns',
    owner: 'campaign_id',
  },
  contact_list_imports: {
    rejects: 'contact_list_rejects',
    contacts: 'contact_list_members',
    owners: 'contact_lists',
    owner: 'list_id',
  },
} as const satisfies Record<ImportTable, Record<'rejects' | 'contacts' | 'owners' | 'owner', string>>;

export interface NewContact {
  readonly address: string;
  /** JSON text of the variables, or null. */
  readonly variables: string | null;
  readonly line: number;
}

export interface NewReject {
  readonly line: number;
  readonly reason: string;
  readonly raw: string | null;
}

/** Where an address already stored for the campaign (or list) came from. */
export interface ExistingContact {
  readonly address: string;
  readonly importId: string | null;
  readonly line: number | null;
}

export interface ImportCounters {
  readonly read: number;
  readonly accepted: number;
  readonly rejected: number;
  readonly duplicate: number;
}

/** An import row as importColumns selects it (the id and counters are BIGINT: strings). */
export interface ImportRow<Source extends string> {
  readonly id: string;
  /** The campaign's or the list's id. */
  readonly owner_id: string;
  readonly source: Source;
  readonly state: ImportState;
  readonly rows_read: string;
  readonly rows_accepted: string;
  readonly rows_rejected: string;
  readonly rows_duplicate: string;
  readonly error: string | null;
  readonly started_at: Date | null;
  readonly finished_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** An import row's fields after its owner's id, as the API views show them. */
export type ImportProgressView<Source extends string> = Omit<
  AudienceImportView,
  'id' | 'campaignId' | 'source'
> & { readonly source: Source };

/** A rejected line (line_no is a BIGINT: a string). */
interface RejectRow {
  readonly line_no: string;
  readonly reason: string;
  readonly raw: string | null;
}

/** import_id and line_no are BIGINT: strings. */
interface ExistingContactRow {
  readonly address: string;
  readonly import_id: string | null;
  readonly line_no: string | null;
}

// The rejects' reason is VARCHAR(255) and raw VARCHAR(1024); error is TEXT (64 KiB).
const MAX_REASON = 255;
const MAX_RAW = 1024;
const MAX_ERROR = 8_000;
const ER_LOCK_DEADLOCK = 1213;
const DEADLOCK_ATTEMPTS = 3;
/** The owner's tenant, for an import joined as `i` to its owner `o`. */
const OF_TENANT = '(? IS NULL OR o.tenant_id = ?)';

/**
 * The rows of imports into a campaign's audience or a contact list, which have the same shape: the
 * import (state, counters, error), its rejected lines, and the contacts (or members) it lands.
 * Extended by each one's repository; it is the sink an AudienceImportWriter lands its chunks in.
 */
export class ImportRows<Source extends string> {
  private readonly tables: (typeof TABLES)[ImportTable];

  constructor(
    protected readonly dataSource: DataSource,
    private readonly table: ImportTable,
  ) {
    this.tables = TABLES[table];
  }

  /** One multi-row INSERT IGNORE; returns how many rows were new (the rest hit the unique address key). */
  async insertContacts(ownerId: string, importId: string, contacts: readonly NewContact[]): Promise<number> {
    if (contacts.length === 0) return 0;
    const params: unknown[] = new Array<unknown>(contacts.length * 5);
    let p = 0;
    for (const contact of contacts) {
      params[p++] = ownerId;
      params[p++] = contact.address;
      params[p++] = contact.variables;
      params[p++] = contact.line;
      params[p++] = importId;
    }
    const { contacts: table, owner } = this.tables;
    const sql = `INSERT IGNORE INTO ${table} (${owner}, address, variables, line_no, import_id) VALUES ${placeholders(contacts.length, 5)}`;
    const result = await retryDeadlock(() => writeRows(this.dataSource, sql, params));
    return result.affectedRows;
  }

  /** The stored rows for these addresses, read through the (owner, address) unique key. */
  async existingContacts(ownerId: string, addresses: readonly string[]): Promise<ExistingContact[]> {
    if (addresses.length === 0) return [];
    const { contacts: table, owner } = this.tables;
    const rows = await selectRows<ExistingContactRow>(
      this.dataSource,
      `SELECT address, import_id, line_no FROM ${table} WHERE ${owner} = ? AND address IN (?)`,
      [ownerId, addresses],
    );
    return rows.map((row) => ({
      address: row.address,
      importId: row.import_id,
      line: row.line_no === null ? null : Number(row.line_no),
    }));
  }

  async insertRejects(importId: string, rejects: readonly NewReject[]): Promise<void> {
    if (rejects.length === 0) return;
    const params: unknown[] = new Array<unknown>(rejects.length * 4);
    let p = 0;
    for (const reject of rejects) {
      params[p++] = importId;
      params[p++] = reject.line;
      params[p++] = truncate(reject.reason, MAX_REASON);
      params[p++] = reject.raw === null ? null : truncate(reject.raw, MAX_RAW);
    }
    await writeRows(
      this.dataSource,
      `INSERT INTO ${this.tables.rejects} (import_id, line_no, reason, raw) VALUES ${placeholders(rejects.length, 4)}`,
      params,
    );
  }

  /** Progress: the counters are absolute totals so far (one writer per import). */
  async updateProgress(importId: string, counters: ImportCounters): Promise<void> {
    await writeRows(
      this.dataSource,
      `UPDATE ${this.table}
          SET rows_read = ?, rows_accepted = ?, rows_rejected = ?, rows_duplicate = ?, updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [counters.read, counters.accepted, counters.rejected, counters.duplicate, importId],
    );
  }

  async finish(
    importId: string,
    state: Extract<ImportState, 'COMPLETED' | 'FAILED'>,
    counters: ImportCounters,
    error: string | null,
  ): Promise<void> {
    await writeRows(
      this.dataSource,
      `UPDATE ${this.table}
          SET state = ?, error = ?, rows_read = ?, rows_accepted = ?, rows_rejected = ?, rows_duplicate = ?,
              finished_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [
        state,
        error === null ? null : truncate(error, MAX_ERROR),
        counters.read,
        counters.accepted,
        counters.rejected,
        counters.duplicate,
        importId,
      ],
    );
  }

  /** Shows that these imports are alive (their process runs them), see abandonStale. */
  async touchImports(importIds: readonly string[]): Promise<void> {
    if (importIds.length === 0) return;
    await writeRows(
      this.dataSource,
      `UPDATE ${this.table} SET updated_at = UTC_TIMESTAMP(3) WHERE id IN (?) AND state = 'RUNNING'`,
      [importIds],
    );
  }

  /** Fails RUNNING imports whose row was not touched for staleMs (their process died); returns how many. */
  async abandonStale(staleMs: number, error: string): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      `UPDATE ${this.table}
          SET state = 'FAILED', error = ?, finished_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE state = 'RUNNING' AND updated_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)`,
      [error, staleMs * 1000],
    );
    return result.affectedRows;
  }

  /** The first rejects of an import this service just ran or already found for the caller. */
  async firstRejects(importId: string, limit: number): Promise<RejectedLine[]> {
    const rows = await selectRows<RejectRow>(
      this.dataSource,
      `SELECT line_no, reason, raw FROM ${this.tables.rejects} WHERE import_id = ? ORDER BY line_no LIMIT ?`,
      [importId, limit],
    );
    return rows.map(toReject).map(({ line, reason }) => ({ line, reason }));
  }

  /** A new import, RUNNING from the start (the work begins as soon as the row exists). */
  protected async insertImport(ownerId: string, source: Source): Promise<string> {
    const result = await writeRows(
      this.dataSource,
      `INSERT INTO ${this.table} (${this.tables.owner}, source, state, started_at, updated_at)
       VALUES (?, ?, 'RUNNING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [ownerId, source],
    );
    return String(result.insertId);
  }

  /** The owner's import, when the owner is the filter's tenant's. */
  protected async findImportRow(
    ownerId: string,
    importId: string,
    tenant: TenantFilter,
  ): Promise<ImportRow<Source> | undefined> {
    const rows = await selectRows<ImportRow<Source>>(
      this.dataSource,
      `SELECT ${this.importColumns()} FROM ${this.joined()}
        WHERE i.id = ? AND i.${this.tables.owner} = ? AND ${OF_TENANT}`,
      [importId, ownerId, tenant, tenant],
    );
    return rows[0];
  }

  /** The owner's imports, newest first; `before` is the id of the last import of the previous page. */
  protected async listImportRows(
    ownerId: string,
    tenant: TenantFilter,
    limit: number,
    before?: string,
  ): Promise<ImportRow<Source>[]> {
    return selectRows<ImportRow<Source>>(
      this.dataSource,
      `SELECT ${this.importColumns()} FROM ${this.joined()}
        WHERE i.${this.tables.owner} = ? AND ${OF_TENANT} ${before === undefined ? '' : 'AND i.id < ?'}
        ORDER BY i.id DESC LIMIT ?`,
      [ownerId, tenant, tenant, ...(before === undefined ? [] : [before]), limit],
    );
  }

  /** A keyset page of an import's rejects by line number, when the owner is the filter's tenant's. */
  async rejects(
    ownerId: string,
    importId: string,
    tenant: TenantFilter,
    page: { readonly afterLine: number; readonly limit: number },
  ): Promise<RejectView[]> {
    const rows = await selectRows<RejectRow>(
      this.dataSource,
      `SELECT r.line_no, r.reason, r.raw FROM ${this.tables.rejects} r
         JOIN ${this.table} i ON i.id = r.import_id JOIN ${this.tables.owners} o ON o.id = i.${this.tables.owner}
        WHERE r.import_id = ? AND i.${this.tables.owner} = ? AND ${OF_TENANT} AND r.line_no > ?
        ORDER BY r.line_no LIMIT ?`,
      [importId, ownerId, tenant, tenant, page.afterLine, page.limit],
    );
    return rows.map(toReject);
  }

  /** The import columns, of the import table joined as `i`, its owner's id as owner_id. */
  private importColumns(): string {
    return `i.id, i.${this.tables.owner} AS owner_id, i.source, i.state, i.rows_read, i.rows_accepted,
      i.rows_rejected, i.rows_duplicate, i.error, i.started_at, i.finished_at, i.created_at, i.updated_at`;
  }

  /** The import table as `i` joined to its owner as `o` (for the owner's tenant). */
  private joined(): string {
    return `${this.table} i JOIN ${this.tables.owners} o ON o.id = i.${this.tables.owner}`;
  }
}

/** An import row's fields after its owner's id (callers put id and owner first, as the views order them). */
export function importProgressView<Source extends string>(
  row: ImportRow<Source>,
): ImportProgressView<Source> {
  return {
    source: row.source,
    state: row.state,
    rowsRead: Number(row.rows_read),
    rowsAccepted: Number(row.rows_accepted),
    rowsRejected: Number(row.rows_rejected),
    rowsDuplicate: Number(row.rows_duplicate),
    error: row.error,
    startedAt: isoOrNull(row.started_at),
    finishedAt: isoOrNull(row.finished_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Runs a statement again when it deadlocked (InnoDB rolled it back whole, so running it again is
 * safe): two imports or copies into one campaign with overlapping addresses can deadlock on the
 * unique key.
 */
export async function retryDeadlock<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error: unknown) {
      if (attempt >= DEADLOCK_ATTEMPTS || (error as { errno?: unknown }).errno !== ER_LOCK_DEADLOCK)
        throw error;
    }
  }
}

function toReject(row: RejectRow): RejectView {
  return { line: Number(row.line_no), reason: row.reason, raw: row.raw };
}

function placeholders(rows: number, columns: number): string {
  const row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(row).join(', ');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}
