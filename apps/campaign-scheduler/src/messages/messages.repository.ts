import { Injectable } from '@nestjs/common';
import { type Channel, MessageStatus } from '@ums/contracts';
import {
  isoOrNull as iso,
  messageTime,
  MysqlReadEndpoint,
  providerMessageIdOf,
  selectRows,
  type TenantFilter,
} from '@ums/platform';
import { DataSource } from 'typeorm';
import type { MessageView, RunMessageView } from './message.view';
import { mergeById } from './run-page-merge';

export interface RunMessageFilters {
  readonly states?: readonly MessageStatus[];
  readonly recipient?: string;
}

/** A message as RUN_COLUMNS selects it. */
interface RunMessageRow {
  readonly id: string;
  readonly recipient: string;
  readonly state: MessageStatus;
  readonly attempts: number;
  readonly provider_message_id: string | null;
  readonly reason: string | null;
  readonly error_code: string | null;
  readonly error_text: string | null;
  readonly sent_at: Date | null;
  readonly delivered_at: Date | null;
  readonly read_at: Date | null;
  readonly failed_at: Date | null;
  readonly updated_at: Date;
}

/** A message as ALL_COLUMNS selects it. */
interface MessageRow extends RunMessageRow {
  readonly tenant_id: string;
  readonly campaign_id: string;
  readonly run_id: string | null;
  readonly channel: Channel;
  readonly credential_id: string;
  readonly lane: string;
  readonly idempotency_key: string | null;
  readonly created_at: Date;
}

/** `SELECT 1 AS found`: the literal is an INT on MariaDB and a BIGINT (a string here) on MySQL 8. */
interface FoundRow {
  readonly found: number | string;
}

interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

/** The columns of a run's message, with its provider id read by `providerId` (hot or archived). */
const runColumns = (providerId: string) => `m.id, m.recipient, m.state, m.attempts,
  ${providerId} AS provider_message_id,
  m.reason, m.error_code, m.error_text, ${messageTime('m.sent_at')} AS sent_at,
  ${messageTime('m.delivered_at')} AS delivered_at, ${messageTime('m.read_at')} AS read_at,
  ${messageTime('m.failed_at')} AS failed_at, m.updated_at`;
// Times NEVER_SQL until they happen, read as NULL; the provider id from its own table.
const RUN_COLUMNS = runColumns(providerMessageIdOf('m.id'));
const ALL_COLUMNS = `${RUN_COLUMNS}, m.tenant_id, m.campaign_id, m.run_id, m.channel, m.credential_id, m.lane,
  m.idempotency_key, m.created_at`;
/** The same of an archived message (`messages_archive m`), whose provider id is archived alike. */
const ARCHIVED_RUN_COLUMNS = runColumns(
  '(SELECT p.provider_message_id FROM message_provider_ids_archive p WHERE p.message_id = m.id)',
);
const ARCHIVED_ALL_COLUMNS = `${ARCHIVED_RUN_COLUMNS}, m.tenant_id, m.campaign_id, m.run_id, m.channel,
  m.credential_id, m.lane, m.idempotency_key, m.created_at`;
const ALL_STATES = Object.values(MessageStatus);

/**
 * Reads of the messages table for the status API. Pages are keyset by id (never OFFSET) and each
 * statement is served by an index read in id order, so a page costs the same at the end of a
 * million-row run as at its start. Ids are bound as BigInt so values above 2^53 stay exact. Every read
 * takes a tenant filter (null: every tenant) applied in SQL, so another tenant's row is not found.
 * Run pages (the listing and the CSV export) are read from the read endpoint (MYSQL_READ_HOST) when
 * one is configured; single-message and ownership reads stay on the primary (no replica lag there).
 * Messages past their retention are in `messages_archive` (the campaign-scheduler's archiver moves
 * them): a message not found in `messages` is looked up there, and a run page reads both tables, hot
 * first (a row moved between the two reads is then seen twice, never missed; the copy is dropped).
 */
@Injectable()
export class MessagesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: MysqlReadEndpoint,
  ) {}

  /** Whether the run is the campaign's and the campaign the tenant's (two primary-key reads). */
  async runBelongsToCampaign(tenantId: TenantFilter, runId: string, campaignId: string): Promise<boolean> {
    const rows = await selectRows<FoundRow>(
      this.dataSource,
      `SELECT 1 AS found FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.id = ? AND r.campaign_id = ? ${tenantId === null ? '' : 'AND c.tenant_id = ?'}`,
      [BigInt(runId), campaignId, ...(tenantId === null ? [] : [tenantId])],
    );
    return rows.length > 0;
  }

  /**
   * Up to `limit` messages of the run with id > `after`, in id order, of the tenant only (null: any).
   * Every message of a run is its campaign's tenant's; the tenant is compared on the rows the page
   * reads anyway, never inside the index-only ranges.
   */
  async listRunPage(
    tenantId: TenantFilter,
    runId: string,
    filters: RunMessageFilters,
    after: string | undefined,
    limit: number,
  ): Promise<RunMessageView[]> {
    const cursor = BigInt(after ?? '0');
    const page = runPageStatement(tenantId, BigInt(runId), filters, cursor, limit);
    const hot = await selectRows<RunMessageRow>(this.reader.dataSource, page.sql, page.params);
    const archivedPage = archivedRunPageStatement(tenantId, BigInt(runId), filters, cursor, limit);
    const archived = await selectRows<RunMessageRow>(
      this.reader.dataSource,
      archivedPage.sql,
      archivedPage.params,
    );
    return mergeById(hot, archived, limit).map(toRunMessageView);
  }

  /** The message, if it is the tenant's (any for null): a primary-key read. */
  async findById(tenantId: TenantFilter, id: string): Promise<MessageView | undefined> {
    const rows = await selectRows<MessageRow>(
      this.dataSource,
      `SELECT ${ALL_COLUMNS} FROM messages m WHERE m.id = ? ${tenantId === null ? '' : 'AND m.tenant_id = ?'}`,
      [BigInt(id), ...(tenantId === null ? [] : [tenantId])],
    );
    if (rows[0] !== undefined) return toMessageView(rows[0], false);
    const archived = await selectRows<MessageRow>(
      this.dataSource,
      `SELECT ${ARCHIVED_ALL_COLUMNS} FROM messages_archive m
        WHERE m.id = ? ${tenantId === null ? '' : 'AND m.tenant_id = ?'}`,
      [BigInt(id), ...(tenantId === null ? [] : [tenantId])],
    );
    return archived[0] === undefined ? undefined : toMessageView(archived[0], true);
  }

  /** A single send by the producer's request id (uq_messages_tenant_idempotency). */
  async findByIdempotencyKey(tenantId: string, idempotencyKey: string): Promise<MessageView | undefined> {
    const rows = await selectRows<MessageRow>(
      this.dataSource,
      `SELECT ${ALL_COLUMNS} FROM messages m WHERE m.tenant_id = ? AND m.idempotency_key = ?`,
      [tenantId, idempotencyKey],
    );
    if (rows[0] !== undefined) return toMessageView(rows[0], false);
    // Archived: the key may have been used again after its first message was archived; the latest wins.
    const archived = await selectRows<MessageRow>(
      this.dataSource,
      `SELECT ${ARCHIVED_ALL_COLUMNS} FROM messages_archive m
        WHERE m.tenant_id = ? AND m.idempotency_key = ? ORDER BY m.id DESC LIMIT 1`,
      [tenantId, idempotencyKey],
    );
    return archived[0] === undefined ? undefined : toMessageView(archived[0], true);
  }
}

/**
 * The statement of a run page. With a recipient: idx_messages_run_recipient (run_id, recipient, +id), a
 * range already in id order. One state: idx_messages_run_state (run_id, state, +id), one range in id order.
 * Several states (or all): one index-only range per state, each already in id order and cut at `limit`,
 * merged; then the page's rows are fetched by primary key. A single `state IN (...)` range would have to
 * sort every remaining row of the run for each page.
 */
function runPageStatement(
  tenantId: TenantFilter,
  run: bigint,
  filters: RunMessageFilters,
  cursor: bigint,
  limit: number,
): Statement {
  const states = filters.states !== undefined && filters.states.length > 0 ? filters.states : ALL_STATES;
  const tenant =
    tenantId === null ? { sql: '', params: [] } : { sql: 'AND m.tenant_id = ?', params: [tenantId] };
  if (filters.recipient !== undefined) {
    const stateFilter = states.length < ALL_STATES.length ? `AND m.state IN (?)` : '';
    return {
      sql: `SELECT ${RUN_COLUMNS} FROM messages m
          WHERE m.run_id = ? AND m.recipient = ? ${stateFilter} AND m.id > ? ${tenant.sql}
          ORDER BY m.id LIMIT ?`,
      params: [
        run,
        filters.recipient,
        ...(stateFilter === '' ? [] : [states]),
        cursor,
        ...tenant.params,
        limit,
      ],
    };
  }
  if (states.length === 1) {
    return {
      sql: `SELECT ${RUN_COLUMNS} FROM messages m
          WHERE m.run_id = ? AND m.state = ? AND m.id > ? ${tenant.sql} ORDER BY m.id LIMIT ?`,
      params: [run, states[0], cursor, ...tenant.params, limit],
    };
  }
  const branches = states.map(
    () => '(SELECT id FROM messages WHERE run_id = ? AND state = ? AND id > ? ORDER BY id LIMIT ?)',
  );
  return {
    sql: `SELECT ${RUN_COLUMNS}
           FROM (${branches.join(' UNION ALL ')} ORDER BY id LIMIT ?) AS page
           JOIN messages m ON m.id = page.id
          WHERE TRUE ${tenant.sql}
          ORDER BY m.id`,
    params: [...states.flatMap((state) => [run, state, cursor, limit]), limit, ...tenant.params],
  };
}

/**
 * The archived part of a run page: idx_messages_archive_run (run_id, +id), one range in id order, the
 * filters applied to the rows it reads (the archive keeps no state or recipient index: a filtered page
 * of an archived run reads the run's archived rows in id order until it is full).
 */
function archivedRunPageStatement(
  tenantId: TenantFilter,
  run: bigint,
  filters: RunMessageFilters,
  cursor: bigint,
  limit: number,
): Statement {
  const states = filters.states !== undefined && filters.states.length > 0 ? filters.states : ALL_STATES;
  const conditions: { sql: string; params: unknown[] }[] = [
    ...(states.length < ALL_STATES.length ? [{ sql: 'AND m.state IN (?)', params: [states] }] : []),
    ...(filters.recipient !== undefined ? [{ sql: 'AND m.recipient = ?', params: [filters.recipient] }] : []),
    ...(tenantId === null ? [] : [{ sql: 'AND m.tenant_id = ?', params: [tenantId] }]),
  ];
  return {
    sql: `SELECT ${ARCHIVED_RUN_COLUMNS} FROM messages_archive m FORCE INDEX (idx_messages_archive_run)
           WHERE m.run_id = ? AND m.id > ? ${conditions.map((c) => c.sql).join(' ')}
           ORDER BY m.id LIMIT ?`,
    params: [run, cursor, ...conditions.flatMap((c) => c.params), limit],
  };
}

function toRunMessageView(row: RunMessageRow): RunMessageView {
  return {
    id: row.id,
    recipient: row.recipient,
    state: row.state,
    attempts: row.attempts,
    providerMessageId: row.provider_message_id,
    reason: row.reason,
    errorCode: row.error_code,
    errorText: row.error_text,
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
    readAt: iso(row.read_at),
    failedAt: iso(row.failed_at),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toMessageView(row: MessageRow, archived: boolean): MessageView {
  return {
    ...toRunMessageView(row),
    tenantId: row.tenant_id,
    campaignId: row.campaign_id,
    runId: row.run_id,
    channel: row.channel,
    credentialId: row.credential_id,
    lane: row.lane,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at.toISOString(),
    archived,
  };
}
