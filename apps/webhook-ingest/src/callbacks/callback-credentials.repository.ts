import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What verifying callbacks needs of a credentials row; the secrets stay sealed here. */
export interface StoredCallbackCredential {
  readonly id: string;
  readonly provider: string;
  readonly channel: string;
  readonly config: unknown;
  readonly sealedSecret: string | null;
  readonly sealedCallbackSecret: string | null;
  readonly sealedVerifyToken: string | null;
}

interface Row {
  id: string;
  provider: string;
  channel: string;
  config: unknown;
  secret_ciphertext: string | null;
  callback_secret_ciphertext: string | null;
  verify_token_ciphertext: string | null;
}

/** Reads one credential by id (a few rows, cached by the caller: a plain single-row statement). */
@Injectable()
export class CallbackCredentialsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string): Promise<StoredCallbackCredential | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT id, provider, channel, config, secret_ciphertext, callback_secret_ciphertext, verify_token_ciphertext
         FROM credentials WHERE id = ?`,
      [id],
    )) as Row[];
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      provider: row.provider,
      channel: row.channel,
      config: typeof row.config === 'string' ? parseJson(row.config) : row.config,
      sealedSecret: row.secret_ciphertext,
      sealedCallbackSecret: row.callback_secret_ciphertext,
      sealedVerifyToken: row.verify_token_ciphertext,
    };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Treated as settings without a verify token.
    return undefined;
  }
}
