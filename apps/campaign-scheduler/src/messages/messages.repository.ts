import { Injectable } from '@nestjs/common';
import { type Channel, MessageStatus } from '@ums/contracts';
import { MysqlReadEndpoint, type TenantFilter } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { MessageView, RunMessageView } from './message.view';

export interface RunMessageFilters {
  readonly states?: readonly MessageStatus[];
  readonly recipient?: string;
}

interface RunMessageRow {
  id: string;
  recipient: string;
  state: string;
  attempts: number | string;
  provider_message_id: string | null;
  reason: string | null;
  error_code: string | null;
  error_text: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  read_at: Date | null;
  failed_at: Date | null;
  updated_at: Date;
}

interface MessageRow extends RunMessageRow {
  tenant_id: string;
  campaign_id: string;
  run_id: string | null;
  channel: string;
  credential_id: string;
  lane: string;
  idempotency_key: string | null;
  created_at: Date;
}

const RUN_COLUMNS = `m.id, m.recipient, m.state, m.attempts, m.provider_message_id, m.reason, m.error_code,
  m.error_text, m.sent_at, m.delivered_at, m.read_at, m.failed_at, m.updated_at`;
const ALL_COLUMNS = `${RUN_COLUMNS}, m.tenant_id, m.campaign_id, m.run_id, m.channel, m.credential_id, m.lane,
  m.idempotency_key, m.created_at`;
const ALL_STATES = Object.values(MessageStatus);

/**
 * Reads of the messages table for the status API. Pages are keyset by id (never OFFSET) and each
 * statement is served by an index read in id order, so a page costs the same at the end of a
 * million-row run as at its start. Ids are bound as BigInt so values above 2^53 stay exact. Every read
 * takes a tenant filter (null: every tenant) applied in SQL, so another tenant's row is not found.
 * Run pages (the listing and the CSV export) are read from the read endpoint (MYSQL_READ_HOST) when
 * one is configured; single-message and ownership reads stay on the primary (no replica lag there).
 */
@Injectable()
export class MessagesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: MysqlReadEndpoint,
  ) {}

  /** Whether the run is the campaign's and the campaign the tenant's (two primary-key reads). */
  async runBelongsToCampaign(tenantId: TenantFilter, runId: string, campaignId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 AS found FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.id = ? AND r.campaign_id = ? ${tenantId === null ? '' : 'AND c.tenant_id = ?'}`,
      [BigInt(runId), campaignId, ...(tenantId === null ? [] : [tenantId])],
    )) as unknown[];
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
    const run = BigInt(runId);
    const cursor = BigInt(after ?? '0');
    const states = filters.states !== undefined && filters.states.length > 0 ? filters.states : ALL_STATES;
    const tenant =
      tenantId === null ? { sql: '', params: [] } : { sql: 'AND m.tenant_id = ?', params: [tenantId] };
    let rows: RunMessageRow[];
    if (filters.recipient !== undefined) {
      // idx_messages_run_recipient (run_id, recipient, +id): the range is already in id order.
      const stateFilter = states.length < ALL_STATES.length ? `AND m.state IN (?)` : '';
      rows = (await this.reader.dataSource.query(
        `SELECT ${RUN_COLUMNS} FROM messages m
          WHERE m.run_id = ? AND m.recipient = ? ${stateFilter} AND m.id > ? ${tenant.sql}
          ORDER BY m.id LIMIT ?`,
        [run, filters.recipient, ...(stateFilter === '' ? [] : [states]), cursor, ...tenant.params, limit],
      )) as RunMessageRow[];
    } else if (states.length === 1) {
      // idx_messages_run_state (run_id, state, +id): one range, in id order.
      rows = (await this.reader.dataSource.query(
        `SELECT ${RUN_COLUMNS} FROM messages m
          WHERE m.run_id = ? AND m.state = ? AND m.id > ? ${tenant.sql} ORDER BY m.id LIMIT ?`,
        [run, states[0], cursor, ...tenant.params, limit],
      )) as RunMessageRow[];
    } else {
      // Several states (or all): one index-only range per state, each already in id order and
      // cut at `limit`, merged; then the page's rows are fetched by primary key. A single
      // `state IN (...)` range would have to sort every remaining row of the run for each page.
      const branches = states.map(
        () => '(SELECT id FROM messages WHERE run_id = ? AND state = ? AND id > ? ORDER BY id LIMIT ?)',
      );
      rows = (await this.reader.dataSource.query(
        `SELECT ${RUN_COLUMNS}
           FROM (${branches.join(' UNION ALL ')} ORDER BY id LIMIT ?) AS page
           JOIN messages m ON m.id = page.id
          WHERE TRUE ${tenant.sql}
          ORDER BY m.id`,
        [...states.flatMap((state) => [run, state, cursor, limit]), limit, ...tenant.params],
      )) as RunMessageRow[];
    }
    return rows.map(toRunMessageView);
  }

  /** The message, if it is the tenant's (any for null): a primary-key read. */
  async findById(tenantId: TenantFilter, id: string): Promise<MessageView | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT ${ALL_COLUMNS} FROM messages m WHERE m.id = ? ${tenantId === null ? '' : 'AND m.tenant_id = ?'}`,
      [BigInt(id), ...(tenantId === null ? [] : [tenantId])],
    )) as MessageRow[];
    return rows[0] === undefined ? undefined : toMessageView(rows[0]);
  }

  /** A single send by the producer's request id (uq_messages_tenant_idempotency). */
  async findByIdempotencyKey(tenantId: string, idempotencyKey: string): Promise<MessageView | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT ${ALL_COLUMNS} FROM messages m WHERE m.tenant_id = ? AND m.idempotency_key = ?`,
      [tenantId, idempotencyKey],
    )) as MessageRow[];
    return rows[0] === undefined ? undefined : toMessageView(rows[0]);
  }
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

function toRunMessageView(row: RunMessageRow): RunMessageView {
  return {
    id: String(row.id),
    recipient: row.recipient,
    state: row.state as MessageStatus,
    attempts: Number(row.attempts),
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

function toMessageView(row: MessageRow): MessageView {
  return {
    ...toRunMessageView(row),
    tenantId: row.tenant_id,
    campaignId: row.campaign_id,
    runId: row.run_id === null ? null : String(row.run_id),
    channel: row.channel as Channel,
    credentialId: row.credential_id,
    lane: row.lane,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at.toISOString(),
  };
}
