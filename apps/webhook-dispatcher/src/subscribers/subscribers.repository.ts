import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SubscriberRecord, SubscriberState } from './subscriber.record';

interface SubscriberRow {
  id: string;
  tenant_id: string;
  url: string;
  event_types: unknown;
  campaign_filter: string | null;
  is_internal: number | string;
  max_events_per_request: number | string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  state: string;
  last_error: string | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  dead_since: Date | null;
  created_at: Date;
  updated_at: Date;
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

/** The subscribers table (low volume, except the batched success/failure stamps). */
@Injectable()
export class SubscribersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(subscriber: NewSubscriber): Promise<void> {
    await this.dataSource.query(
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

  async find(id: string): Promise<SubscriberRecord | undefined> {
    const rows: SubscriberRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM subscribers WHERE id = ?`,
      [id],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async list(
    tenantId: string | undefined,
    after: string | undefined,
    limit: number,
  ): Promise<SubscriberRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (tenantId !== undefined) {
      where.push('tenant_id = ?');
      params.push(tenantId);
    }
    if (after !== undefined) {
      where.push('id > ?');
      params.push(after);
    }
    const rows: SubscriberRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM subscribers ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toRecord);
  }

  /** Every subscriber, for the in-memory directory each replica keeps. */
  async all(): Promise<SubscriberRecord[]> {
    const rows: SubscriberRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM subscribers`);
    return rows.map(toRecord);
  }

  async update(id: string, changes: SubscriberChanges): Promise<void> {
    await this.dataSource.query(
      `UPDATE subscribers SET url = ?, event_types = ?, campaign_filter = ?, is_internal = ?,
         max_events_per_request = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?`,
      [
        changes.url,
        JSON.stringify(changes.eventTypes),
        changes.campaignId,
        changes.internal ? 1 : 0,
        changes.maxEventsPerRequest,
        id,
      ],
    );
  }

  async rotateSecret(
    id: string,
    sealedSecret: string,
    sealedPrevious: string,
    graceMs: number,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE subscribers SET previous_secret = ?, secret = ?,
         previous_secret_expires_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(3)
       WHERE id = ?`,
      [sealedPrevious, sealedSecret, graceMs * 1000, id],
    );
  }

  /** Deletes the subscriber and its deliveries (in slices, so no statement holds many locks for long). */
  async delete(id: string): Promise<boolean> {
    const result: { affectedRows: number } = await this.dataSource.query(
      'DELETE FROM subscribers WHERE id = ?',
      [id],
    );
    for (;;) {
      const slice: { affectedRows: number } = await this.dataSource.query(
        'DELETE FROM deliveries WHERE subscriber_id = ? LIMIT 5000',
        [id],
      );
      if (slice.affectedRows < 5000) break;
    }
    return result.affectedRows > 0;
  }

  /** Conditional state change; false when the subscriber was not in one of `from`. */
  async transition(
    id: string,
    from: readonly SubscriberState[],
    to: SubscriberState,
    lastError?: string,
  ): Promise<boolean> {
    const deadSince =
      to === 'DEAD' || to === 'DISABLED' ? 'UTC_TIMESTAMP(3)' : to === 'ALIVE' ? 'NULL' : 'dead_since';
    const result: { affectedRows: number } = await this.dataSource.query(
      `UPDATE subscribers SET state = ?, dead_since = ${deadSince}, last_error = COALESCE(?, last_error),
         updated_at = UTC_TIMESTAMP(3)
       WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})`,
      [to, lastError?.slice(0, 1024) ?? null, id, ...from],
    );
    return result.affectedRows > 0;
  }

  /** Success and failure stamps of many subscribers at once (one statement each kind). */
  async stamp(successes: readonly string[], failures: ReadonlyMap<string, string>): Promise<void> {
    if (successes.length > 0) {
      await this.dataSource.query(
        `UPDATE subscribers SET last_success_at = UTC_TIMESTAMP(3) WHERE id IN (${successes.map(() => '?').join(', ')})`,
        [...successes],
      );
    }
    if (failures.size > 0) {
      const ids = [...failures.keys()];
      await this.dataSource.query(
        `UPDATE subscribers SET last_failure_at = UTC_TIMESTAMP(3),
           last_error = CASE id ${ids.map(() => 'WHEN ? THEN ?').join(' ')} END
         WHERE id IN (${ids.map(() => '?').join(', ')})`,
        [...ids.flatMap((id) => [id, (failures.get(id) ?? '').slice(0, 1024)]), ...ids],
      );
    }
  }
}

function toRecord(row: SubscriberRow): SubscriberRecord {
  const types: unknown = typeof row.event_types === 'string' ? JSON.parse(row.event_types) : row.event_types;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    eventTypes: Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string') : [],
    campaignId: row.campaign_filter,
    internal: Number(row.is_internal) === 1,
    maxEventsPerRequest: Number(row.max_events_per_request),
    sealedSecret: row.secret,
    sealedPreviousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    state: row.state as SubscriberState,
    lastError: row.last_error,
    lastSuccessAt: row.last_success_at,
    lastFailureAt: row.last_failure_at,
    deadSince: row.dead_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
