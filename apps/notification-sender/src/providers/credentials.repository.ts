import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What sending needs of a credentials row; the secret stays sealed here. */
export interface StoredCredential {
  readonly id: string;
  readonly provider: string;
  readonly channel: string;
  /** Parsed JSON settings (MariaDB returns JSON columns as text, MySQL 8 as values). */
  readonly config: unknown;
  readonly sealedSecret: string | null;
}

interface CredentialRow {
  id: string;
  provider: string;
  channel: string;
  config: unknown;
  secret_ciphertext: string | null;
}

/** Reads credentials by id (a few rows, cached by the loader: plain single-row statements). */
@Injectable()
export class CredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string): Promise<StoredCredential | undefined> {
    const rows = (await this.dataSource.query(
      'SELECT id, provider, channel, config, secret_ciphertext FROM credentials WHERE id = ?',
      [id],
    )) as CredentialRow[];
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      provider: row.provider,
      channel: row.channel,
      config: typeof row.config === 'string' ? parseJson(row.config) : row.config,
      sealedSecret: row.secret_ciphertext,
    };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Reported by the loader as settings that are not an object.
    return undefined;
  }
}
