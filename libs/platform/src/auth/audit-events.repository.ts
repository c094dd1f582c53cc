import { Injectable } from '@nestjs/common';
import type { AuditEvent } from '@ums/contracts';
import { DataSource } from 'typeorm';
import { selectRows, writeRows } from '../mysql/typed-rows';
import type { TenantFilter } from './principal';

/** One state-changing API call (libs/contracts, as the audit trail's API shows it too). */
export type { AuditEvent };

export interface StoredAuditEvent extends AuditEvent {
  readonly id: string;
  readonly occurredAt: Date;
}

export interface AuditQuery {
  readonly tenant: TenantFilter;
  readonly limit: number;
  /** Newest first: only events with a smaller id. */
  readonly before?: string;
  readonly action?: string;
  readonly principalId?: string;
  readonly since?: Date;
}

/** An `audit_events` row (the id is a BIGINT: a string; status a SMALLINT UNSIGNED: a number). */
interface AuditRow {
  readonly id: string;
  readonly occurred_at: Date;
  readonly principal_kind: string;
  readonly principal_id: string;
  readonly tenant_id: string | null;
  readonly service: string;
  readonly action: string;
  readonly target: string | null;
  readonly status: number;
  readonly result: string;
  readonly request_id: string | null;
}

/** The append-only audit_events table. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(event: AuditEvent): Promise<void> {
    await writeRows(
      this.dataSource,
      `INSERT INTO audit_events (occurred_at, principal_kind, principal_id, tenant_id, service, action, target,
         status, result, request_id)
       VALUES (UTC_TIMESTAMP(3), ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        event.principalKind,
        event.principalId.slice(0, 200),
        event.tenantId,
        event.service,
        event.action.slice(0, 200),
        event.target?.slice(0, 500) ?? null,
        event.status,
        event.result.slice(0, 64),
        event.requestId,
      ],
    );
  }

  async list(query: AuditQuery): Promise<StoredAuditEvent[]> {
    const rows = await selectRows<AuditRow>(
      this.dataSource,
      `SELECT id, occurred_at, principal_kind, principal_id, tenant_id, service, action, target, status, result,
         request_id
       FROM audit_events
       WHERE (? IS NULL OR tenant_id = ?) AND (? IS NULL OR id < ?) AND (? IS NULL OR action = ?)
         AND (? IS NULL OR principal_id = ?) AND (? IS NULL OR occurred_at >= ?)
       ORDER BY id DESC LIMIT ?`,
      [
        ...twice(query.tenant),
        ...twice(query.before ?? null),
        ...twice(query.action ?? null),
        ...twice(query.principalId ?? null),
        ...twice(query.since ?? null),
        query.limit,
      ],
    );
    return rows.map(toStoredEvent);
  }
}

function toStoredEvent(row: AuditRow): StoredAuditEvent {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    principalKind: row.principal_kind,
    principalId: row.principal_id,
    tenantId: row.tenant_id,
    service: row.service,
    action: row.action,
    target: row.target,
    status: row.status,
    result: row.result,
    requestId: row.request_id,
  };
}

function twice<T>(value: T): [T, T] {
  return [value, value];
}
