import { Injectable } from '@nestjs/common';
import { selectRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { CredentialLimits } from './provider-adapter';

/** What sending needs of a credentials row; the secret stays sealed here. */
export interface StoredCredential {
  readonly id: string;
  readonly provider: string;
  readonly channel: string;
  /** Parsed JSON settings (MariaDB returns JSON columns as text, MySQL 8 as values). */
  readonly config: unknown;
  readonly sealedSecret: string | null;
  readonly limits: CredentialLimits;
}

/** A credentials row as selected: `config` JSON (text on MariaDB), the rates INT UNSIGNED. */
interface CredentialRow {
  readonly id: string;
  readonly provider: string;
  readonly channel: string;
  readonly config: unknown;
  readonly secret_ciphertext: string | null;
  readonly rate_ceiling_per_sec: number;
  readonly rate_floor_per_sec: number;
  readonly tenant_rate_cap_per_sec: number | null;
}

/** Reads credentials by id (a few rows, cached by the loader: plain single-row statements). */
@Injectable()
export class CredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string): Promise<StoredCredential | undefined> {
    const [row] = await selectRows<CredentialRow>(
      this.dataSource,
      `SELECT id, provider, channel, config, secret_ciphertext, rate_ceiling_per_sec, rate_floor_per_sec,
              tenant_rate_cap_per_sec
         FROM credentials WHERE id = ?`,
      [id],
    );
    return row === undefined ? undefined : storedCredentialOf(row);
  }
}

function storedCredentialOf(row: CredentialRow): StoredCredential {
  return {
    id: row.id,
    provider: row.provider,
    channel: row.channel,
    config: typeof row.config === 'string' ? parseJson(row.config) : row.config,
    sealedSecret: row.secret_ciphertext,
    limits: {
      ceiling: row.rate_ceiling_per_sec,
      floor: row.rate_floor_per_sec,
      tenantCapPerSec: row.tenant_rate_cap_per_sec,
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Reported by the loader as settings that are not an object.
    return undefined;
  }
}
