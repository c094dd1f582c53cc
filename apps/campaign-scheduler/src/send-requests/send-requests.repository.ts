import { Injectable } from '@nestjs/common';
import { type Channel, MessageHandlingErrorCode, type MessageContentV1 } from '@ums/contracts';
import { NonRetryableError, selectRows, withNamedLock, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';

/** `SELECT 1 AS x`: the literal is an INT on MariaDB and a BIGINT (a string here) on MySQL 8. */
interface FoundRow {
  readonly x: number | string;
}

interface StoredMessageRow {
  readonly id: string;
  readonly state: string;
}

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
    const rows = await selectRows<FoundRow>(
      this.dataSource,
      'SELECT 1 AS x FROM opt_outs WHERE tenant_id = ? AND channel = ? AND address = ?',
      [tenantId, channel, address],
    );
    return rows.length > 0;
  }

  /**
   * The message row of a single send, once per (tenant, request id): a redelivered request finds
   * the first row. content keeps the content and the recipient's variables, so the message can be
   * re-published (resend) without the original request.
   */
  async storeSingle(m: SingleMessage): Promise<StoredSingle> {
    const result = await writeRows(
      this.dataSource,
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
    );
    if (result.affectedRows === 1) {
      return { id: String(result.insertId), state: m.optedOut ? 'SKIPPED' : 'PENDING', created: true };
    }
    // A repeated request: the row the first one stored, in whatever state it has reached since.
    const rows = await selectRows<StoredMessageRow>(
      this.dataSource,
      'SELECT id, state FROM messages WHERE tenant_id = ? AND idempotency_key = ?',
      [m.tenantId, m.requestId],
    );
    const stored = rows[0];
    if (stored === undefined) {
      throw new NonRetryableError(
        MessageHandlingErrorCode.SendRequestNotStored,
        `The database did not store request ${m.requestId} (INSERT IGNORE refused it)`,
      );
    }
    return { id: String(stored.id), state: String(stored.state), created: false };
  }

  /**
   * Runs `work` holding a named MySQL lock (GET_LOCK, on one pooled connection), so redelivered
   * copies of one bulk request, consumed in parallel, are handled one after the other.
   */
  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const result = await withNamedLock(this.dataSource, { name, waitSeconds: 60 }, work);
    if (!result.acquired) throw new Error(`Timed out waiting for lock ${name}`);
    return result.value;
  }

  /** The audience import of a bulk request's campaign, when it has one (a redelivered or retried request). */
  async requestImportId(campaignId: string): Promise<string | undefined> {
    const rows = await selectRows<{ readonly id: string | number }>(
      this.dataSource,
      `SELECT id FROM audience_imports WHERE campaign_id = ? AND source = 'request'
          AND state IN ('PENDING', 'RUNNING', 'COMPLETED') ORDER BY id LIMIT 1`,
      [campaignId],
    );
    return rows[0] === undefined ? undefined : String(rows[0].id);
  }
}
