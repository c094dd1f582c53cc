import { Injectable } from '@nestjs/common';
import type { Channel, ContactListMemberView, ContactListView } from '@ums/contracts';
import { selectRows, type TenantFilter, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import { retryDeadlock } from '../audience/import-rows.sql';
import type { SqlCondition, SqlReason } from './contact-list-sql';

const LIST_COLUMNS = 'l.id, l.name, l.channel, l.default_country, l.member_count, l.created_at, l.updated_at';
const OF_TENANT = '(? IS NULL OR l.tenant_id = ?)';
const DELETE_ROWS = 10_000;

interface ListRow {
  readonly id: string;
  readonly name: string;
  readonly channel: Channel;
  readonly default_country: string | null;
  readonly member_count: string;
  readonly created_at: Date;
  readonly updated_at: Date;
}

interface MemberRow {
  readonly id: string;
  readonly address: string;
  /** Parsed on MySQL 8, its text on MariaDB (where JSON is LONGTEXT). */
  readonly variables: unknown;
  readonly line_no: string | null;
}

export interface NewContactList {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly channel: Channel;
  readonly defaultCountry: string | null;
}

/** One window of a list copied into a campaign: members with lowId < id <= highId. */
export interface CopyWindow {
  readonly listId: string;
  readonly campaignId: string;
  readonly importId: string;
  readonly lowId: string;
  readonly highId: string;
  readonly segment: SqlCondition;
  readonly required: SqlCondition;
  readonly reason: SqlReason;
}

export interface CopyCounts {
  /** Members of the window in the segment. */
  readonly matched: number;
  /** Of those, new in the campaign's audience. */
  readonly inserted: number;
  /** Of those, without a variable the template uses (recorded as rejects). */
  readonly rejected: number;
}

@Injectable()
export class ContactListsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(list: NewContactList): Promise<void> {
    await writeRows(
      this.dataSource,
      `INSERT INTO contact_lists (id, tenant_id, name, channel, default_country, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [list.id, list.tenantId, list.name, list.channel, list.defaultCountry],
    );
  }

  /** The list, when it is the filter's tenant's. */
  async find(id: string, tenant: TenantFilter): Promise<ContactListView | undefined> {
    const rows = await selectRows<ListRow>(
      this.dataSource,
      `SELECT ${LIST_COLUMNS} FROM contact_lists l WHERE l.id = ? AND ${OF_TENANT}`,
      [id, tenant, tenant],
    );
    return rows[0] === undefined ? undefined : toListView(rows[0]);
  }

  /** The list, when it is the campaign's tenant's (and the filter's): what a campaign may use. */
  async findForCampaign(
    id: string,
    campaignId: string,
    tenant: TenantFilter,
  ): Promise<ContactListView | undefined> {
    const rows = await selectRows<ListRow>(
      this.dataSource,
      `SELECT ${LIST_COLUMNS} FROM contact_lists l JOIN campaigns c ON c.tenant_id = l.tenant_id
        WHERE l.id = ? AND c.id = ? AND ${OF_TENANT}`,
      [id, campaignId, tenant, tenant],
    );
    return rows[0] === undefined ? undefined : toListView(rows[0]);
  }

  /** Newest first (ids are time-ordered ULIDs); `before` is the last id of the previous page. */
  async list(tenant: TenantFilter, limit: number, before?: string): Promise<ContactListView[]> {
    const rows = await selectRows<ListRow>(
      this.dataSource,
      `SELECT ${LIST_COLUMNS} FROM contact_lists l
        WHERE ${OF_TENANT} ${before === undefined ? '' : 'AND l.id < ?'}
        ORDER BY l.id DESC LIMIT ?`,
      [tenant, tenant, ...(before === undefined ? [] : [before]), limit],
    );
    return rows.map(toListView);
  }

  /** A keyset page of members in id order (idx_contact_list_members_list_id). */
  async members(listId: string, afterId: string, limit: number): Promise<ContactListMemberView[]> {
    const rows = await selectRows<MemberRow>(
      this.dataSource,
      `SELECT id, address, variables, line_no FROM contact_list_members
        WHERE list_id = ? AND id > ? ORDER BY id LIMIT ?`,
      [listId, afterId, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      address: row.address,
      variables: parseVariables(row.variables),
      line: row.line_no === null ? null : Number(row.line_no),
    }));
  }

  /**
   * Deletes the list unless one of its imports is RUNNING, in one transaction holding the list row:
   * a new import (its foreign key waits on that row) finds it gone. Answers false when refused.
   * The imports go with the list (ON DELETE CASCADE); members and rejects are then deleted in
   * bounded statements, see purge.
   */
  async delete(id: string): Promise<{ deleted: boolean; importIds: string[] }> {
    return this.dataSource.transaction(async (manager) => {
      await selectRows(manager, 'SELECT id FROM contact_lists WHERE id = ? FOR UPDATE', [id]);
      const imports = await selectRows<{ id: string; state: string }>(
        manager,
        'SELECT id, state FROM contact_list_imports WHERE list_id = ?',
        [id],
      );
      if (imports.some((row) => row.state === 'RUNNING')) return { deleted: false, importIds: [] };
      await writeRows(manager, 'DELETE FROM contact_lists WHERE id = ?', [id]);
      return { deleted: true, importIds: imports.map((row) => row.id) };
    });
  }

  /** The members and rejects of a deleted list, DELETE_ROWS at a time (no long lock on a big list). */
  async purge(listId: string, importIds: readonly string[]): Promise<void> {
    const steps: [string, unknown[]][] = [
      ['DELETE FROM contact_list_members WHERE list_id = ? LIMIT ?', [listId, DELETE_ROWS]],
    ];
    if (importIds.length > 0) {
      steps.push([
        'DELETE FROM contact_list_rejects WHERE import_id IN (?) LIMIT ?',
        [importIds, DELETE_ROWS],
      ]);
    }
    for (const [sql, params] of steps) {
      while ((await writeRows(this.dataSource, sql, params)).affectedRows === DELETE_ROWS) {
        // another bounded batch
      }
    }
  }

  /**
   * The highest member id of the next window of at most `rows` members after `afterId`, or undefined
   * past the last member.
   */
  async windowEnd(listId: string, afterId: string, rows: number): Promise<string | undefined> {
    const found = await selectRows<{ last: string | null }>(
      this.dataSource,
      `SELECT MAX(w.id) AS last FROM (
         SELECT id FROM contact_list_members WHERE list_id = ? AND id > ? ORDER BY id LIMIT ?
       ) w`,
      [listId, afterId, rows],
    );
    const last = found[0]?.last;
    return last === null || last === undefined ? undefined : String(last);
  }

  /**
   * Copies one window of a list's members in the segment into the campaign's contacts: one
   * INSERT IGNORE ... SELECT of those with every template variable (an address already in the
   * audience is skipped by its unique key), one INSERT ... SELECT of the rejects of the others, and a
   * count of the window's members in the segment.
   */
  async copyWindow(window: CopyWindow): Promise<CopyCounts> {
    const range = 'm.list_id = ? AND m.id > ? AND m.id <= ?';
    const rangeParams = [window.listId, window.lowId, window.highId];
    const segmentParams = [...rangeParams, ...window.segment.params];
    // Two copies into one campaign with overlapping addresses can deadlock on the unique key.
    const inserted = await retryDeadlock(() =>
      writeRows(
        this.dataSource,
        `INSERT IGNORE INTO contacts (campaign_id, address, variables, line_no, import_id)
         SELECT ?, m.address, m.variables, m.line_no, ? FROM contact_list_members m
          WHERE ${range} AND (${window.segment.sql}) AND (${window.required.sql})
          ORDER BY m.id`,
        [window.campaignId, window.importId, ...segmentParams, ...window.required.params],
      ),
    );
    let rejected = 0;
    if (window.required.params.length > 0) {
      const result = await writeRows(
        this.dataSource,
        `INSERT INTO audience_rejects (import_id, line_no, reason, raw)
         SELECT ?, COALESCE(m.line_no, 0), ${window.reason.sql}, m.address FROM contact_list_members m
          WHERE ${range} AND (${window.segment.sql}) AND NOT (${window.required.sql})`,
        [window.importId, ...window.reason.params, ...segmentParams, ...window.required.params],
      );
      rejected = result.affectedRows;
    }
    const counted = await selectRows<{ matched: string | number }>(
      this.dataSource,
      `SELECT COUNT(*) AS matched FROM contact_list_members m WHERE ${range} AND (${window.segment.sql})`,
      segmentParams,
    );
    return { matched: Number(counted[0]?.matched ?? 0), inserted: inserted.affectedRows, rejected };
  }
}

function parseVariables(value: unknown): Readonly<Record<string, string>> | null {
  if (value === null || value === undefined) return null;
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : null;
}

function toListView(row: ListRow): ContactListView {
  return {
    id: row.id,
    name: row.name,
    channel: row.channel,
    defaultCountry: row.default_country,
    memberCount: Number(row.member_count),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
