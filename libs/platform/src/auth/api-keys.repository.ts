import { Injectable } from '@nestjs/common';
import { isScope, type Scope } from '@ums/contracts';
import { DataSource } from 'typeorm';
import { selectRows, writeRows } from '../mysql/typed-rows';
import type { TenantFilter } from './principal';

/** A stored API key: never its token, only the token's SHA-256. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly secretHash: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

export type NewApiKey = Omit<ApiKeyRecord, 'createdAt' | 'revokedAt'>;

/** An `api_keys` row as COLUMNS selects it; scopes is the comma-separated list as stored. */
interface ApiKeyRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly scopes: string;
  readonly secret_hash: string;
  readonly created_by: string;
  readonly created_at: Date;
  readonly expires_at: Date | null;
  readonly revoked_at: Date | null;
}

const COLUMNS = 'id, tenant_id, name, scopes, secret_hash, created_by, created_at, expires_at, revoked_at';

/** The api_keys table: low volume, one row at a time. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(key: NewApiKey): Promise<ApiKeyRecord> {
    await writeRows(
      this.dataSource,
      `INSERT INTO api_keys (id, tenant_id, name, scopes, secret_hash, created_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3), ?)`,
      [key.id, key.tenantId, key.name, key.scopes.join(','), key.secretHash, key.createdBy, key.expiresAt],
    );
    return (await this.find(key.id, key.tenantId)) as ApiKeyRecord;
  }

  /** The key, when it exists and belongs to the filter's tenant (any tenant for null). */
  async find(id: string, tenant: TenantFilter): Promise<ApiKeyRecord | undefined> {
    const rows = await selectRows<ApiKeyRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM api_keys WHERE id = ? AND (? IS NULL OR tenant_id = ?)`,
      [id, tenant, tenant],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /** Keys in id order (creation order), after `after`, of one tenant or of all. */
  async list(tenant: TenantFilter, limit: number, after?: string): Promise<ApiKeyRecord[]> {
    const rows = await selectRows<ApiKeyRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM api_keys
       WHERE (? IS NULL OR tenant_id = ?) AND (? IS NULL OR id > ?)
       ORDER BY id LIMIT ?`,
      [tenant, tenant, after ?? null, after ?? null, limit],
    );
    return rows.map(toRecord);
  }

  /** Revokes the key (once: a second revoke keeps the first time); false when no such key for the filter. */
  async revoke(id: string, tenant: TenantFilter): Promise<boolean> {
    const result = await writeRows(
      this.dataSource,
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, UTC_TIMESTAMP(3))
       WHERE id = ? AND (? IS NULL OR tenant_id = ?)`,
      [id, tenant, tenant],
    );
    return result.affectedRows > 0 || (await this.find(id, tenant)) !== undefined;
  }
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    scopes: row.scopes.split(',').filter(isScope),
    secretHash: row.secret_hash,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}
