import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { TenantFilter } from './principal';

/** One state-changing API call: who, for which tenant, what, on what, with which result, when. */
export interface AuditEvent {
  readonly principalKind: string;
  readonly principalId: string;
  readonly tenantId: string | null;
  readonly service: string;
  readonly action: string;
  readonly target: string | null;
  /** The HTTP status answered. */
  readonly status: number;
  /** `ok`, or the error code answered. */
  readonly result: string;
  readonly requestId: string | null;
}

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

interface AuditRow {
  id: string | number;
  occurred_at: Date;
  principal_kind: string;
  principal_id: string;
  tenant_id: string | null;
  service: string;
  action: string;
  target: string | null;
  status: number;
  result: string;
  request_id: string | null;
}

/** The append-only audit_events table. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(event: AuditEvent): Promise<void> {
    await this.dataSource.query(
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
    const rows = (await this.dataSource.query(
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
    )) as AuditRow[];
    return rows.map((row) => ({
      id: String(row.id),
      occurredAt: row.occurred_at,
      principalKind: row.principal_kind,
      principalId: row.principal_id,
      tenantId: row.tenant_id,
      service: row.service,
      action: row.action,
      target: row.target,
      status: Number(row.status),
      result: row.result,
      requestId: row.request_id,
    }));
  }
}

function twice<T>(value: T): [T, T] {
  return [value, value];
}
