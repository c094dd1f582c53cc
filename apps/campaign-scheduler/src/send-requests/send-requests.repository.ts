import { Injectable } from '@nestjs/common';
import type { Channel, MessageContentV1 } from '@ums/contracts';
import { DataSource } from 'typeorm';

type Row = Record<string, unknown>;

export interface SingleMessage {
  readonly tenantId: string;
  readonly requestId: string;
  readonly partitionKey: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly recipient: string;
  readonly content: MessageContentV1;
  readonly variables: Record<string, string> | undefined;
  readonly optedOut: boolean;
}

export interface StoredSingle {
  readonly id: string;
  readonly state: string;
  readonly created: boolean;
}

@Injectable()
export class SendRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async isOptedOut(tenantId: string, channel: Channel, address: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      'SELECT 1 AS x FROM opt_outs WHERE tenant_id = ? AND channel = ? AND address = ?',
      [tenantId, channel, address],
    )) as Row[];
    return rows.length > 0;
  }

  /**
   * The message row of a single send, once per (tenant, request id): a redelivered request finds
   * the first row. content keeps the content and the recipient's variables, so the message can be
   * re-published (resend) without the original request.
   */
  async storeSingle(m: SingleMessage): Promise<StoredSingle> {
    const result = (await this.dataSource.query(
      `INSERT IGNORE INTO messages (campaign_id, tenant_id, channel, credential_id, recipient, lane, state, reason,
         idempotency_key, content, updated_at)
       VALUES (?, ?, ?, ?, ?, 'priority', ?, ?, ?, ?, UTC_TIMESTAMP(3))`,
      [
        m.partitionKey,
        m.tenantId,
        m.channel,
        m.credentialId,
        m.recipient,
        m.optedOut ? 'SKIPPED' : 'PENDING',
        m.optedOut ? 'opted-out' : null,
        m.requestId,
        JSON.stringify({ content: m.content, variables: m.variables ?? null }),
      ],
    )) as { affectedRows: number };
    const rows = (await this.dataSource.query(
      'SELECT id, state FROM messages WHERE tenant_id = ? AND idempotency_key = ?',
      [m.tenantId, m.requestId],
    )) as Row[];
    return {
      id: String(rows[0]?.['id']),
      state: String(rows[0]?.['state']),
      created: result.affectedRows === 1,
    };
  }

  /**
   * Runs `work` holding a named MySQL lock (GET_LOCK, on one pooled connection), so redelivered
   * copies of one bulk request, consumed in parallel, are handled one after the other.
   */
  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const rows = (await runner.query('SELECT GET_LOCK(?, 60) AS locked', [name])) as Row[];
      if (Number(rows[0]?.['locked']) !== 1) throw new Error(`Timed out waiting for lock ${name}`);
      try {
        return await work();
      } finally {
        await runner.query('SELECT RELEASE_LOCK(?)', [name]);
      }
    } finally {
      await runner.release();
    }
  }

  /** Whether a bulk request's campaign already has its audience import (a redelivered request). */
  async hasRequestImport(campaignId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 AS x FROM audience_imports WHERE campaign_id = ? AND source = 'request'
          AND state IN ('PENDING', 'RUNNING', 'COMPLETED') LIMIT 1`,
      [campaignId],
    )) as Row[];
    return rows.length > 0;
  }
}
