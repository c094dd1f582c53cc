import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type Channel,
  CampaignErrorCode,
  type MessageContentV1,
  type MessageStatus,
  type TestSendRecipientView,
  type TestSendView,
} from '@ums/contracts';
import {
  isoOrNull,
  messageTime,
  type SqlRunner,
  selectRows,
  TooManyError,
  withNamedLock,
  writeRows,
} from '@ums/platform';
import type { QueryRunner } from 'typeorm';
import { DataSource } from 'typeorm';

/** One message of a new test send, checked and rendered already. */
export interface NewTestMessage {
  readonly position: number;
  readonly recipient: string;
  readonly variables: Record<string, string>;
  readonly optedOut: boolean;
}

export interface NewTestSend {
  readonly tenantId: string;
  readonly campaignId: string;
  readonly channel: Channel;
  readonly credentialId: string;
  /** The campaign's template: stored on each message row with its variables, as single sends keep theirs. */
  readonly content: MessageContentV1;
  readonly actor: string;
  readonly requestId: string | null;
  readonly messages: readonly NewTestMessage[];
}

/** A test send as stored: `created` false when a retried request found the first one. */
export interface StoredTestSend {
  readonly id: string;
  readonly created: boolean;
}

interface TestSendRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly actor: string;
  readonly request_id: string | null;
  readonly created_at: Date;
}

interface RecipientRow {
  readonly test_send_id: string;
  readonly position: number;
  readonly recipient: string;
  readonly message_id: string;
  readonly state: MessageStatus;
  readonly error_code: string | null;
  readonly error_text: string | null;
  readonly sent_at: Date | null;
  readonly delivered_at: Date | null;
  readonly read_at: Date | null;
  readonly failed_at: Date | null;
  readonly updated_at: Date;
}

/** The idempotency key of a test send's message: a retry of the store never makes a second message. */
export function testMessageKey(testSendId: string, position: number): string {
  return `test-send:${testSendId}:${position}`;
}

const COUNT_WINDOW_SECONDS = 60;
const LOCK_WAIT_SECONDS = 10;

/**
 * test_sends and their messages. A tenant's test sends are stored one at a time (a MySQL named lock
 * per tenant), so the rate bound (test sends of the last minute) holds over every replica.
 */
@Injectable()
export class TestSendsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async optedOut(tenantId: string, channel: Channel, addresses: readonly string[]): Promise<Set<string>> {
    const rows = await selectRows<{ readonly address: string }>(
      this.dataSource,
      `SELECT address FROM opt_outs WHERE tenant_id = ? AND channel = ? AND address IN (${addresses.map(() => '?').join(', ')})`,
      [tenantId, channel, ...addresses],
    );
    return new Set(rows.map((r) => r.address));
  }

  /**
   * Stores the test send and its messages in one transaction, or finds the one stored before under
   * the same request id. Throws 429 when the tenant made `perMinute` test sends in the last minute.
   */
  async store(send: NewTestSend, perMinute: number): Promise<StoredTestSend> {
    const lock = `ums:test-send:${createHash('sha256').update(send.tenantId).digest('base64url').slice(0, 32)}`;
    const locked = await withNamedLock(
      this.dataSource,
      { name: lock, waitSeconds: LOCK_WAIT_SECONDS },
      async (runner) => {
        const existing = send.requestId === null ? undefined : await this.byRequest(runner, send);
        if (existing !== undefined) return { id: existing, created: false };
        await this.checkRate(runner, send.tenantId, perMinute);
        return { id: await this.insert(runner, send), created: true };
      },
    );
    if (!locked.acquired) throw new Error(`Timed out waiting for lock ${lock}`);
    return locked.value;
  }

  private async byRequest(runner: SqlRunner, send: NewTestSend): Promise<string | undefined> {
    const rows = await selectRows<{ readonly id: string }>(
      runner,
      'SELECT id FROM test_sends WHERE tenant_id = ? AND campaign_id = ? AND request_id = ?',
      [send.tenantId, send.campaignId, send.requestId],
    );
    return rows[0] === undefined ? undefined : String(rows[0].id);
  }

  private async checkRate(runner: SqlRunner, tenantId: string, perMinute: number): Promise<void> {
    const [row] = await selectRows<{ readonly n: number | string }>(
      runner,
      `SELECT COUNT(*) AS n FROM test_sends
        WHERE tenant_id = ? AND created_at > UTC_TIMESTAMP(3) - INTERVAL ${COUNT_WINDOW_SECONDS} SECOND`,
      [tenantId],
    );
    if (Number(row?.n ?? 0) >= perMinute) {
      throw new TooManyError(
        CampaignErrorCode.TestSendRateLimited,
        `Tenant ${tenantId} made ${perMinute} test sends in the last minute (TEST_SENDS_PER_MINUTE); retry later`,
      );
    }
  }

  private async insert(runner: QueryRunner, send: NewTestSend): Promise<string> {
    await runner.startTransaction();
    try {
      const inserted = await writeRows(
        runner,
        `INSERT INTO test_sends (tenant_id, campaign_id, request_id, actor, created_at)
         VALUES (?, ?, ?, ?, UTC_TIMESTAMP(3))`,
        [send.tenantId, send.campaignId, send.requestId, send.actor],
      );
      const id = String(inserted.insertId);
      await writeRows(
        runner,
        `INSERT INTO messages (campaign_id, tenant_id, channel, credential_id, recipient, lane, state, reason,
           idempotency_key, content, updated_at)
         VALUES ${send.messages.map(() => "(?, ?, ?, ?, ?, 'priority', ?, ?, ?, ?, UTC_TIMESTAMP(3))").join(', ')}`,
        send.messages.flatMap((m) => [
          send.campaignId,
          send.tenantId,
          send.channel,
          send.credentialId,
          m.recipient,
          m.optedOut ? 'SKIPPED' : 'PENDING',
          m.optedOut ? 'opted-out' : null,
          testMessageKey(id, m.position),
          JSON.stringify({ content: send.content, variables: m.variables }),
        ]),
      );
      // The new rows' ids by their keys (a multi-row insert's ids need not be consecutive).
      await writeRows(
        runner,
        `INSERT INTO test_send_messages (test_send_id, position, recipient, message_id)
         SELECT ?, CAST(SUBSTRING_INDEX(m.idempotency_key, ':', -1) AS UNSIGNED), m.recipient, m.id
           FROM messages m WHERE m.tenant_id = ? AND m.idempotency_key LIKE ?`,
        [id, send.tenantId, `${testMessageKey(id, 0).slice(0, -1)}%`],
      );
      await runner.commitTransaction();
      return id;
    } catch (error: unknown) {
      await runner.rollbackTransaction();
      throw error;
    }
  }

  /** Test sends of a campaign, newest first, after (older than) `after`. */
  async list(campaignId: string, limit: number, after?: string): Promise<TestSendView[]> {
    const rows = await selectRows<TestSendRow>(
      this.dataSource,
      `SELECT id, campaign_id, actor, request_id, created_at FROM test_sends
        WHERE campaign_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`,
      [campaignId, after ?? null, after ?? null, limit],
    );
    return this.withRecipients(rows);
  }

  async find(campaignId: string, testSendId: string): Promise<TestSendView | undefined> {
    const rows = await selectRows<TestSendRow>(
      this.dataSource,
      'SELECT id, campaign_id, actor, request_id, created_at FROM test_sends WHERE id = ? AND campaign_id = ?',
      [testSendId, campaignId],
    );
    return (await this.withRecipients(rows))[0];
  }

  private async withRecipients(rows: readonly TestSendRow[]): Promise<TestSendView[]> {
    if (rows.length === 0) return [];
    const recipients = await selectRows<RecipientRow>(
      this.dataSource,
      `SELECT t.test_send_id, t.position, t.recipient, m.id AS message_id, m.state, m.error_code, m.error_text,
              ${messageTime('m.sent_at')} AS sent_at, ${messageTime('m.delivered_at')} AS delivered_at,
              ${messageTime('m.read_at')} AS read_at, ${messageTime('m.failed_at')} AS failed_at, m.updated_at
         FROM test_send_messages t JOIN messages m ON m.id = t.message_id
        WHERE t.test_send_id IN (${rows.map(() => '?').join(', ')})
        ORDER BY t.test_send_id, t.position`,
      rows.map((r) => r.id),
    );
    const byId = new Map<string, TestSendRecipientView[]>();
    for (const r of recipients) {
      const list = byId.get(String(r.test_send_id)) ?? [];
      list.push(toRecipientView(r));
      byId.set(String(r.test_send_id), list);
    }
    return rows.map((r) => ({
      id: String(r.id),
      campaignId: r.campaign_id,
      actor: r.actor,
      requestId: r.request_id,
      createdAt: r.created_at.toISOString(),
      recipients: byId.get(String(r.id)) ?? [],
    }));
  }
}

function toRecipientView(r: RecipientRow): TestSendRecipientView {
  return {
    position: Number(r.position),
    recipient: r.recipient,
    messageId: String(r.message_id),
    state: String(r.state).trim() as MessageStatus,
    errorCode: r.error_code,
    errorText: r.error_text,
    sentAt: isoOrNull(r.sent_at),
    deliveredAt: isoOrNull(r.delivered_at),
    readAt: isoOrNull(r.read_at),
    failedAt: isoOrNull(r.failed_at),
    updatedAt: r.updated_at.toISOString(),
  };
}
