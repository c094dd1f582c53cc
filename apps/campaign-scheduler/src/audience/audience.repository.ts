import { Injectable } from '@nestjs/common';
import type { Channel } from '@ums/contracts';
import type { CampaignState } from '@ums/domain';
import { isoOrNull, selectRows, type TenantFilter, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import type {
  AudienceImportView,
  ImportSource,
  ImportState,
  RejectedLine,
  RejectView,
} from './audience-import.view';

/** What an import needs to know about its campaign. */
export interface AudienceCampaign {
  readonly id: string;
  readonly channel: Channel;
  /** campaigns.template as stored (a JSON object, or its text on MariaDB). */
  readonly template: unknown;
  readonly defaultCountry: string | null;
  readonly state: CampaignState;
}

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

/** Where an address already stored for the campaign came from. */
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

const IMPORT_COLUMNS = `id, campaign_id, source, state, rows_read, rows_accepted, rows_rejected, rows_duplicate,
  error, started_at, finished_at, created_at, updated_at`;
// The same columns of audience_imports joined as `i` (to campaigns `c`, for its tenant).
const JOINED_IMPORT_COLUMNS = IMPORT_COLUMNS.split(',')
  .map((column) => `i.${column.trim()}`)
  .join(', ');
const OF_TENANT = '(? IS NULL OR c.tenant_id = ?)';

interface AudienceCampaignRow {
  readonly id: string;
  readonly channel: Channel;
  /** JSON: parsed on MySQL 8, its text on MariaDB (where JSON is LONGTEXT). */
  readonly template: unknown;
  readonly default_country: string | null;
  readonly state: CampaignState;
}

/** import_id and line_no are BIGINT: strings. */
interface ExistingContactRow {
  readonly address: string;
  readonly import_id: string | null;
  readonly line_no: string | null;
}

/** An `audience_imports` row as IMPORT_COLUMNS selects it (the id and counters are BIGINT: strings). */
interface ImportRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly source: ImportSource;
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

/** An `audience_rejects` line (line_no is a BIGINT: a string). */
interface RejectRow {
  readonly line_no: string;
  readonly reason: string;
  readonly raw: string | null;
}

// audience_rejects.reason is VARCHAR(255) and raw VARCHAR(1024); error is TEXT (64 KiB).
const MAX_REASON = 255;
const MAX_RAW = 1024;
const MAX_ERROR = 8_000;
const ER_LOCK_DEADLOCK = 1213;
const DEADLOCK_ATTEMPTS = 3;

@Injectable()
export class AudienceRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The campaign, when it exists and is the filter's tenant's (any tenant's for null). */
  async campaign(id: string, tenant: TenantFilter): Promise<AudienceCampaign | undefined> {
    const rows = await selectRows<AudienceCampaignRow>(
      this.dataSource,
      `SELECT id, channel, template, default_country, state FROM campaigns
        WHERE id = ? AND (? IS NULL OR tenant_id = ?)`,
      [id, tenant, tenant],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      channel: row.channel,
      template: row.template,
      defaultCountry: row.default_country,
      state: row.state,
    };
  }

  /** A new import, RUNNING from the start (the work begins as soon as the row exists). */
  async createImport(campaignId: string, source: ImportSource): Promise<string> {
    const result = await writeRows(
      this.dataSource,
      `INSERT INTO audience_imports (campaign_id, source, state, started_at, updated_at)
       VALUES (?, ?, 'RUNNING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [campaignId, source],
    );
    return String(result.insertId);
  }

  /** One multi-row INSERT IGNORE; returns how many rows were new (the rest hit the unique address key). */
  async insertContacts(
    campaignId: string,
    importId: string,
    contacts: readonly NewContact[],
  ): Promise<number> {
    if (contacts.length === 0) return 0;
    const params: unknown[] = new Array<unknown>(contacts.length * 5);
    let p = 0;
    for (const contact of contacts) {
      params[p++] = campaignId;
      params[p++] = contact.address;
      params[p++] = contact.variables;
      params[p++] = contact.line;
      params[p++] = importId;
    }
    const sql = `INSERT IGNORE INTO contacts (campaign_id, address, variables, line_no, import_id) VALUES ${placeholders(contacts.length, 5)}`;
    // Two imports into one campaign with overlapping addresses can deadlock on the unique key; the
    // statement is then rolled back whole, so running it again is safe.
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await writeRows(this.dataSource, sql, params);
        return result.affectedRows;
      } catch (error: unknown) {
        if (attempt >= DEADLOCK_ATTEMPTS || (error as { errno?: unknown }).errno !== ER_LOCK_DEADLOCK)
          throw error;
      }
    }
  }

  /** The stored rows for these addresses, read through the (campaign_id, address) unique key. */
  async existingContacts(campaignId: string, addresses: readonly string[]): Promise<ExistingContact[]> {
    if (addresses.length === 0) return [];
    const rows = await selectRows<ExistingContactRow>(
      this.dataSource,
      'SELECT address, import_id, line_no FROM contacts WHERE campaign_id = ? AND address IN (?)',
      [campaignId, addresses],
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
      `INSERT INTO audience_rejects (import_id, line_no, reason, raw) VALUES ${placeholders(rejects.length, 4)}`,
      params,
    );
  }

  /** Progress: the counters are absolute totals so far (one writer per import). */
  async updateProgress(importId: string, counters: ImportCounters): Promise<void> {
    await writeRows(
      this.dataSource,
      `UPDATE audience_imports
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
      `UPDATE audience_imports
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
      `UPDATE audience_imports SET updated_at = UTC_TIMESTAMP(3) WHERE id IN (?) AND state = 'RUNNING'`,
      [importIds],
    );
  }

  /** Fails RUNNING imports whose row was not touched for staleMs; returns how many. */
  async abandonStale(staleMs: number, error: string): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      `UPDATE audience_imports
          SET state = 'FAILED', error = ?, finished_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE state = 'RUNNING' AND updated_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)`,
      [error, staleMs * 1000],
    );
    return result.affectedRows;
  }

  /** The campaign's import, when the campaign is the filter's tenant's. */
  async findImport(
    campaignId: string,
    importId: string,
    tenant: TenantFilter,
  ): Promise<AudienceImportView | undefined> {
    const rows = await selectRows<ImportRow>(
      this.dataSource,
      `SELECT ${JOINED_IMPORT_COLUMNS} FROM audience_imports i JOIN campaigns c ON c.id = i.campaign_id
        WHERE i.id = ? AND i.campaign_id = ? AND ${OF_TENANT}`,
      [importId, campaignId, tenant, tenant],
    );
    return rows[0] === undefined ? undefined : toView(rows[0]);
  }

  /** Newest first; `before` is the id of the last import of the previous page. */
  async listImports(
    campaignId: string,
    tenant: TenantFilter,
    limit: number,
    before?: string,
  ): Promise<AudienceImportView[]> {
    const rows = await selectRows<ImportRow>(
      this.dataSource,
      `SELECT ${JOINED_IMPORT_COLUMNS} FROM audience_imports i JOIN campaigns c ON c.id = i.campaign_id
        WHERE i.campaign_id = ? AND ${OF_TENANT} ${before === undefined ? '' : 'AND i.id < ?'}
        ORDER BY i.id DESC LIMIT ?`,
      [campaignId, tenant, tenant, ...(before === undefined ? [] : [before]), limit],
    );
    return rows.map(toView);
  }

  /** A keyset page of an import's rejects by line number (idx_audience_rejects_import_line). */
  async rejects(
    campaignId: string,
    importId: string,
    tenant: TenantFilter,
    page: { readonly afterLine: number; readonly limit: number },
  ): Promise<RejectView[]> {
    const rows = await selectRows<RejectRow>(
      this.dataSource,
      `SELECT r.line_no, r.reason, r.raw FROM audience_rejects r
         JOIN audience_imports i ON i.id = r.import_id JOIN campaigns c ON c.id = i.campaign_id
        WHERE r.import_id = ? AND i.campaign_id = ? AND ${OF_TENANT} AND r.line_no > ?
        ORDER BY r.line_no LIMIT ?`,
      [importId, campaignId, tenant, tenant, page.afterLine, page.limit],
    );
    return rows.map(toReject);
  }

  /** The first rejects of an import this service just ran or already found for the caller. */
  async firstRejects(importId: string, limit: number): Promise<RejectedLine[]> {
    const rows = await selectRows<RejectRow>(
      this.dataSource,
      `SELECT line_no, reason, raw FROM audience_rejects WHERE import_id = ? ORDER BY line_no LIMIT ?`,
      [importId, limit],
    );
    return rows.map(toReject).map(({ line, reason }) => ({ line, reason }));
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

function toView(row: ImportRow): AudienceImportView {
  return {
    id: row.id,
    campaignId: row.campaign_id,
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
