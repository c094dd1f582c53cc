import { Injectable } from '@nestjs/common';
import { selectRows, type TenantFilter, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { SubscriberRecord, SubscriberState } from './subscriber.record';

/**
 * A subscribers row as COLUMNS selects it: is_internal TINYINT(1), max_events_per_request SMALLINT
 * UNSIGNED, state by its CHECK; event_types is JSON, which the driver parses (a JSON array of strings
 * as written here; a string where a server reports it as text).
 */
interface SubscriberRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly url: string;
  readonly event_types: unknown;
  readonly campaign_filter: string | null;
  readonly is_internal: number;
  readonly max_events_per_request: number;
  readonly secret: string;
  readonly previous_secret: string | null;
  readonly previous_secret_expires_at: Date | null;
  readonly state: SubscriberState;
  readonly last_error: string | null;
  readonly last_success_at: Date | null;
  readonly last_failure_at: Date | null;
  readonly dead_since: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

const COLUMNS = `id, tenant_id, url, event_types, campaign_filter, is_internal, max_events_per_request, secret,
  previous_secret, previous_secret_expires_at, state, last_error, last_success_at, last_failure_at, dead_since, created_at, updated_at`;

export type NewSubscriber = Pick<
  SubscriberRecord,
  | 'id'
  | 'tenantId'
  | 'url'
  | 'eventTypes'
  | 'campaignId'
  | 'internal'
  | 'maxEventsPerRequest'
  | 'sealedSecret'
>;

export type SubscriberChanges = Pick<
  SubscriberRecord,
  'url' | 'eventTypes' | 'campaignId' | 'internal' | 'maxEventsPerRequest'
>;

/**
 * The subscribers table (low volume, except the batched success/failure stamps). Reads and writes by
 * id take a TenantFilter: another tenant's subscriber is not found, exactly like a missing one.
 */
@Injectable()
export class SubscribersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(subscriber: NewSubscriber): Promise<void> {
    await writeRows(
      this.dataSource,
      `INSERT INTO subscribers (id, tenant_id, url, event_types, campaign_filter, is_internal, max_events_per_request,
         secret, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ALIVE', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [
        subscriber.id,
        subscriber.tenantId,
        subscriber.url,
        JSON.stringify(subscriber.eventTypes),
        subscriber.campaignId,
        subscriber.internal ? 1 : 0,
        subscriber.maxEventsPerRequest,
        subscriber.sealedSecret,
      ],
    );
  }

  /** The subscriber, if it exists within `tenant` (null: any tenant's, for operators and the hot path). */
  async find(id: string, tenant: TenantFilter): Promise<SubscriberRecord | undefined> {
    const inTenant = tenantCondition(tenant);
    const rows = await selectRows<SubscriberRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM subscribers WHERE id = ?${inTenant.sql}`,
      [id, ...inTenant.params],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async list(tenant: TenantFilter, after: string | undefined, limit: number): Promise<SubscriberRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (tenant !== null) {
      where.push('tenant_id = ?');
      params.push(tenant);
    }
    if (after !== undefined) {
      where.push('id > ?');
      params.push(after);
    }
    const rows = await selectRows<SubscriberRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM subscribers ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toRecord);
  }

  /** Every subscriber, for the in-memory directory each replica keeps. */
  async all(): Promise<SubscriberRecord[]> {
    const rows = await selectRows<SubscriberRow>(this.dataSource, `SELECT ${COLUMNS} FROM subscribers`);
    return rows.map(toRecord);
  }

  /** False when no such subscriber exists within `tenant`. */
  async update(id: string, tenant: TenantFilter, changes: SubscriberChanges): Promise<boolean> {
    const inTenant = tenantCondition(tenant);
    const result = await writeRows(
      this.dataSource,
      `UPDATE subscribers SET url = ?, event_types = ?, campaign_filter = ?, is_internal = ?,
         max_events_per_request = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?${inTenant.sql}`,
      [
        changes.url,
        JSON.stringify(changes.eventTypes),
        changes.campaignId,
        changes.internal ? 1 : 0,
        changes.maxEventsPerRequest,
        id,
        ...inTenant.params,
      ],
    );
    return result.affectedRows > 0;
  }

  /** False when no such subscriber exists within `tenant`. */
  async rotateSecret(
    id: string,
    tenant: TenantFilter,
    secrets: { readonly sealedSecret: string; readonly sealedPrevious: string; readonly graceMs: number },
  ): Promise<boolean> {
    const inTenant = tenantCondition(tenant);
    const result = await writeRows(
      this.dataSource,
      `UPDATE subscribers SET previous_secret = ?, secret = ?,
         previous_secret_expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(3)
       WHERE id = ?${inTenant.sql}`,
      [secrets.sealedPrevious, secrets.sealedSecret, secrets.graceMs * 1000, id, ...inTenant.params],
    );
    return result.affectedRows > 0;
  }

  /**
   * Deletes the subscriber, if it exists within `tenant`, and then its deliveries (in slices, so no
   * statement holds many locks for long). False when there was no such subscriber (nothing deleted).
   */
  async delete(id: string, tenant: TenantFilter): Promise<boolean> {
    const inTenant = tenantCondition(tenant);
    const result = await writeRows(this.dataSource, `DELETE FROM subscribers WHERE id = ?${inTenant.sql}`, [
      id,
      ...inTenant.params,
    ]);
    if (result.affectedRows === 0) return false;
    for (;;) {
      const slice = await writeRows(
        this.dataSource,
        'DELETE FROM deliveries WHERE subscriber_id = ? LIMIT 5000',
        [id],
      );
      if (slice.affectedRows < 5000) break;
    }
    return true;
  }

  /**
   * Conditional state change of a subscriber within `tenant` (null for the dispatcher's own changes);
   * false when it was not in one of `from`, or not the tenant's.
   */
  async transition(change: {
    readonly id: string;
    readonly tenant: TenantFilter;
    readonly from: readonly SubscriberState[];
    readonly to: SubscriberState;
    readonly lastError?: string;
  }): Promise<boolean> {
    const { id, from, to } = change;
    const inTenant = tenantCondition(change.tenant);
    const deadSince =
      to === 'DEAD' || to === 'DISABLED' ? 'UTC_TIMESTAMP(3)' : to === 'ALIVE' ? 'NULL' : 'dead_since';
    const result = await writeRows(
      this.dataSource,
      `UPDATE subscribers SET state = ?, dead_since = ${deadSince}, last_error = COALESCE(?, last_error),
         updated_at = UTC_TIMESTAMP(3)
       WHERE id = ?${inTenant.sql} AND state IN (${from.map(() => '?').join(', ')})`,
      [to, change.lastError?.slice(0, 1024) ?? null, id, ...inTenant.params, ...from],
    );
    return result.affectedRows > 0;
  }

  /** Success and failure stamps of many subscribers at once (one statement each kind). */
  async stamp(successes: readonly string[], failures: ReadonlyMap<string, string>): Promise<void> {
    if (successes.length > 0) {
      await writeRows(
        this.dataSource,
        `UPDATE subscribers SET last_success_at = UTC_TIMESTAMP(3) WHERE id IN (${successes.map(() => '?').join(', ')})`,
        successes,
      );
    }
    if (failures.size > 0) {
      const ids = [...failures.keys()];
      await writeRows(
        this.dataSource,
        `UPDATE subscribers SET last_failure_at = UTC_TIMESTAMP(3),
           last_error = CASE id ${ids.map(() => 'WHEN ? THEN ?').join(' ')} END
         WHERE id IN (${ids.map(() => '?').join(', ')})`,
        [...ids.flatMap((id) => [id, (failures.get(id) ?? '').slice(0, 1024)]), ...ids],
      );
    }
  }
}

/** `AND tenant_id = ?` for one tenant's rows; nothing for every tenant's (operators, the hot path). */
function tenantCondition(tenant: TenantFilter): { readonly sql: string; readonly params: string[] } {
  return tenant === null ? { sql: '', params: [] } : { sql: ' AND tenant_id = ?', params: [tenant] };
}

function toRecord(row: SubscriberRow): SubscriberRecord {
  const types: unknown = typeof row.event_types === 'string' ? JSON.parse(row.event_types) : row.event_types;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    eventTypes: Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string') : [],
    campaignId: row.campaign_filter,
    internal: row.is_internal === 1,
    maxEventsPerRequest: row.max_events_per_request,
    sealedSecret: row.secret,
    sealedPreviousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    state: row.state,
    lastError: row.last_error,
    lastSuccessAt: row.last_success_at,
    lastFailureAt: row.last_failure_at,
    deadSince: row.dead_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
