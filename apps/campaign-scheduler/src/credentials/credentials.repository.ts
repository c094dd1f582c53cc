import { Injectable } from '@nestjs/common';
import type { Channel, Provider } from '@ums/contracts';
import { jsonColumn, selectRows, type TenantFilter, writeRows } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';

export type CredentialSettings = Record<string, string | number | boolean>;

/** A stored credential; `sealedSecret` is the SecretBox output, never the plaintext. */
export interface CredentialRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly provider: Provider;
  readonly channel: Channel;
  readonly config: CredentialSettings;
  readonly sealedSecret: string | null;
  /** Verifies the provider's callbacks (webhook-ingest opens it); null: Twilio uses its auth token, others refuse. */
  readonly sealedCallbackSecret: string | null;
  /** Meta's `hub.verify_token` (whatsapp-cloud), sealed; webhook-ingest opens it. */
  readonly sealedVerifyToken: string | null;
  readonly rateCeilingPerSec: number;
  readonly rateFloorPerSec: number;
  readonly tenantRateCapPerSec: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type NewCredential = Omit<CredentialRecord, 'createdAt' | 'updatedAt'>;

/** The fields PATCH may change, already merged with the current values. */
export type CredentialChanges = Pick<
  CredentialRecord,
  | 'name'
  | 'config'
  | 'sealedSecret'
  | 'sealedCallbackSecret'
  | 'sealedVerifyToken'
  | 'rateCeilingPerSec'
  | 'rateFloorPerSec'
  | 'tenantRateCapPerSec'
>;

/** A `credentials` row as COLUMNS selects it (the rates are INT UNSIGNED: numbers). */
interface CredentialRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly provider: Provider;
  readonly channel: Channel;
  /** JSON: parsed on MySQL 8, its text on MariaDB (where JSON is LONGTEXT). */
  readonly config: unknown;
  readonly secret_ciphertext: string | null;
  readonly callback_secret_ciphertext: string | null;
  readonly verify_token_ciphertext: string | null;
  readonly rate_ceiling_per_sec: number;
  readonly rate_floor_per_sec: number;
  readonly tenant_rate_cap_per_sec: number | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

const COLUMNS = `id, tenant_id, name, provider, channel, config, secret_ciphertext, callback_secret_ciphertext,
  verify_token_ciphertext, rate_ceiling_per_sec, rate_floor_per_sec, tenant_rate_cap_per_sec, created_at, updated_at`;

/** The credentials table (low volume: plain statements, one row at a time). */
@Injectable()
export class CredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(credential: NewCredential): Promise<void> {
    await writeRows(
      this.dataSource,
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
         callback_secret_ciphertext, verify_token_ciphertext, rate_ceiling_per_sec, rate_floor_per_sec,
         tenant_rate_cap_per_sec, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [
        credential.id,
        credential.tenantId,
        credential.name,
        credential.provider,
        credential.channel,
        JSON.stringify(credential.config),
        credential.sealedSecret,
        credential.sealedCallbackSecret,
        credential.sealedVerifyToken,
        credential.rateCeilingPerSec,
        credential.rateFloorPerSec,
        credential.tenantRateCapPerSec,
      ],
    );
  }

  /** The credential when it exists and is the tenant's (any tenant's for a null filter). */
  async findById(
    id: string,
    tenant: TenantFilter,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<CredentialRecord | undefined> {
    const where = byId(id, tenant);
    const rows = await selectRows<CredentialRow>(
      manager,
      `SELECT ${COLUMNS} FROM credentials WHERE ${where.sql}`,
      where.params,
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /**
   * A tenant's credentials in id order after `after` (served by idx_credentials_tenant, which ends in
   * the id); every tenant's for a null filter (the primary key).
   */
  async list(tenant: TenantFilter, after: string | undefined, limit: number): Promise<CredentialRecord[]> {
    const rows =
      tenant === null
        ? await selectRows<CredentialRow>(
            this.dataSource,
            `SELECT ${COLUMNS} FROM credentials WHERE id > ? ORDER BY id LIMIT ?`,
            [after ?? '', limit],
          )
        : await selectRows<CredentialRow>(
            this.dataSource,
            `SELECT ${COLUMNS} FROM credentials WHERE tenant_id = ? AND id > ? ORDER BY id LIMIT ?`,
            [tenant, after ?? '', limit],
          );
    return rows.map(toRecord);
  }

  /**
   * Locks the row, lets `decide` compute the new values from the current ones (it may throw to
   * refuse), writes them and returns the updated record; undefined when there is no such credential
   * of the tenant (nothing of another tenant's is locked or read).
   */
  async update(
    id: string,
    tenant: TenantFilter,
    decide: (current: CredentialRecord) => CredentialChanges,
  ): Promise<CredentialRecord | undefined> {
    const where = byId(id, tenant);
    return this.dataSource.transaction(async (manager) => {
      const rows = await selectRows<CredentialRow>(
        manager,
        `SELECT ${COLUMNS} FROM credentials WHERE ${where.sql} FOR UPDATE`,
        where.params,
      );
      if (rows[0] === undefined) return undefined;
      const next = decide(toRecord(rows[0]));
      await writeRows(
        manager,
        `UPDATE credentials
            SET name = ?, config = ?, secret_ciphertext = ?, callback_secret_ciphertext = ?,
                verify_token_ciphertext = ?, rate_ceiling_per_sec = ?, rate_floor_per_sec = ?,
                tenant_rate_cap_per_sec = ?, updated_at = UTC_TIMESTAMP(3)
          WHERE id = ?`,
        [
          next.name,
          JSON.stringify(next.config),
          next.sealedSecret,
          next.sealedCallbackSecret,
          next.sealedVerifyToken,
          next.rateCeilingPerSec,
          next.rateFloorPerSec,
          next.tenantRateCapPerSec,
          id,
        ],
      );
      return this.findById(id, tenant, manager);
    });
  }
}

/** The row by id, within the tenant unless the filter is null (an operator across tenants). */
function byId(id: string, tenant: TenantFilter): { sql: string; params: string[] } {
  return tenant === null
    ? { sql: 'id = ?', params: [id] }
    : { sql: 'id = ? AND tenant_id = ?', params: [id, tenant] };
}

function toRecord(row: CredentialRow): CredentialRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    provider: row.provider,
    channel: row.channel,
    config: jsonColumn(row.config) as CredentialSettings,
    sealedSecret: row.secret_ciphertext,
    sealedCallbackSecret: row.callback_secret_ciphertext,
    sealedVerifyToken: row.verify_token_ciphertext,
    rateCeilingPerSec: row.rate_ceiling_per_sec,
    rateFloorPerSec: row.rate_floor_per_sec,
    tenantRateCapPerSec: row.tenant_rate_cap_per_sec,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
