import { Injectable } from '@nestjs/common';
import { type Channel, FailureReason, MessageStatus } from '@ums/contracts';
import { MessageEvent, transitionMessage } from '@ums/domain';
import { jsonColumn } from '@ums/platform';
import { DataSource } from 'typeorm';
import { moveCounters } from './run-counters';

type Row = Record<string, unknown>;

/** A message this sender claimed (PENDING -> SENDING) and now owns until it records the outcome. */
export interface ClaimedMessage {
  readonly id: string;
  readonly runId: string | null;
  readonly campaignId: string;
  readonly tenantId: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly recipient: string;
  /** Attempts including this one. */
  readonly attempts: number;
  /** Single sends keep their content and variables on the row. */
  readonly stored: unknown;
}

export interface ClaimResult {
  readonly claimed: ClaimedMessage[];
  /** PENDING messages of paused or stopped runs: left PENDING, re-published on resume. */
  readonly held: string[];
  /** Not PENDING (already claimed, sent or settled by another copy of the batch), or locked by another sender. */
  readonly skipped: string[];
}

/** What a send attempt ended with, for one claimed message. */
export type RecordedOutcome =
  | { readonly id: string; readonly kind: 'sent'; readonly providerMessageId: string }
  | {
      readonly id: string;
      readonly kind: 'failed';
      readonly reason: FailureReason;
      readonly code?: string;
      readonly text?: string;
    }
  | {
      readonly id: string;
      readonly kind: 'released';
      readonly reason: FailureReason;
      readonly code?: string;
      readonly text?: string;
    };

/** One applied state change, for the status topic. */
export interface StatusChange {
  readonly messageId: string;
  readonly runId: string | null;
  readonly campaignId: string;
  readonly tenantId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly previous: MessageStatus;
  readonly status: MessageStatus;
  readonly providerMessageId?: string;
  readonly reason?: FailureReason;
  readonly errorCode?: string;
  readonly errorText?: string;
}

/**
 * The exactly-once core: a message is claimed in MySQL (PENDING -> SENDING with a claim token,
 * SELECT ... FOR UPDATE SKIP LOCKED) before any provider call, and its outcome is recorded only by
 * the claim's owner. A claim never recorded becomes UNKNOWN and is never resent automatically.
 * Every statement covers a whole batch; run counters move in the same transaction as the rows.
 */
@Injectable()
export class MessageClaimsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async claim(ids: readonly string[], token: string): Promise<ClaimResult> {
    if (ids.length === 0) return { claimed: [], held: [], skipped: [] };
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, run_id, campaign_id, tenant_id, channel, credential_id, recipient, attempts, content
           FROM messages WHERE id IN (?) AND state = 'PENDING' FOR UPDATE SKIP LOCKED`,
        [ids],
      )) as Row[];
      const runIds = [
        ...new Set(
          rows
            .map((r) => r['run_id'])
            .filter((v) => v !== null)
            .map(String),
        ),
      ];
      // Read without a lock: a pause racing with this claim lets at most this batch through.
      const running = new Set(
        runIds.length === 0
          ? []
          : (
              (await manager.query(`SELECT id FROM runs WHERE id IN (?) AND state = 'RUNNING'`, [
                runIds,
              ])) as Row[]
            ).map((r) => String(r['id'])),
      );
      const claimable = rows.filter((r) => r['run_id'] === null || running.has(String(r['run_id'])));
      const held = rows.filter((r) => !claimable.includes(r)).map((r) => String(r['id']));
      const found = new Set(rows.map((r) => String(r['id'])));
      const skipped = ids.filter((id) => !found.has(id));
      if (claimable.length > 0) {
        await manager.query(
          `UPDATE messages SET state = 'SENDING', claim_token = ?, claimed_at = UTC_TIMESTAMP(3),
                  attempts = attempts + 1, updated_at = UTC_TIMESTAMP(3)
            WHERE id IN (?)`,
          [token, claimable.map((r) => String(r['id']))],
        );
        await moveCounters(
          manager,
          claimable.map((r) => ({
            runId: nullableString(r['run_id']),
            from: MessageStatus.Pending,
            to: MessageStatus.Sending,
          })),
        );
      }
      return {
        claimed: claimable.map((r) => ({
          id: String(r['id']),
          runId: nullableString(r['run_id']),
          campaignId: String(r['campaign_id']),
          tenantId: String(r['tenant_id']),
          channel: r['channel'] as Channel,
          credentialId: String(r['credential_id']),
          recipient: String(r['recipient']),
          attempts: Number(r['attempts']) + 1,
          stored: r['content'] === null ? null : jsonColumn(r['content']),
        })),
        held,
        skipped,
      };
    });
  }

  /**
   * Records outcomes of claimed messages: sent (SENT with the provider id), failed (FAILED with
   * reason and code), released (back to PENDING for a retry tier). Only rows still SENDING under
   * this claim token change; a claim that expired meanwhile stays UNKNOWN for its callback to settle.
   */
  async record(token: string, outcomes: readonly RecordedOutcome[]): Promise<StatusChange[]> {
    if (outcomes.length === 0) return [];
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient, state FROM messages
          WHERE id IN (?) AND claim_token = ? AND state = 'SENDING' FOR UPDATE`,
        [outcomes.map((o) => o.id), token],
      )) as Row[];
      const byId = new Map(rows.map((r) => [String(r['id']), r]));
      const changes: StatusChange[] = [];
      const sent: { id: string; providerMessageId: string }[] = [];
      const failed: RecordedOutcome[] = [];
      const released: RecordedOutcome[] = [];
      for (const outcome of outcomes) {
        const row = byId.get(outcome.id);
        if (row === undefined) continue;
        const event =
          outcome.kind === 'sent'
            ? MessageEvent.Accept
            : outcome.kind === 'failed'
              ? MessageEvent.RejectPermanent
              : MessageEvent.ReleaseForRetry;
        const transition = transitionMessage(MessageStatus.Sending, event);
        if (!transition.ok) continue;
        if (outcome.kind === 'sent')
          sent.push({ id: outcome.id, providerMessageId: outcome.providerMessageId });
        else if (outcome.kind === 'failed') failed.push(outcome);
        else released.push(outcome);
        changes.push({
          messageId: outcome.id,
          runId: nullableString(row['run_id']),
          campaignId: String(row['campaign_id']),
          tenantId: String(row['tenant_id']),
          channel: row['channel'] as Channel,
          recipient: String(row['recipient']),
          previous: MessageStatus.Sending,
          status: transition.next,
          ...(outcome.kind === 'sent'
            ? { providerMessageId: outcome.providerMessageId }
            : { reason: outcome.reason, errorCode: outcome.code, errorText: outcome.text }),
        });
      }
      if (sent.length > 0) {
        await manager.query(
          `UPDATE messages
              SET state = 'SENT', sent_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3),
                  provider_message_id = CASE id ${sent.map(() => 'WHEN ? THEN ?').join(' ')} END
            WHERE id IN (?)`,
          [...sent.flatMap((s) => [s.id, s.providerMessageId]), sent.map((s) => s.id)],
        );
      }
      for (const [list, state] of [
        [failed, 'FAILED'],
        [released, 'PENDING'],
      ] as const) {
        if (list.length === 0) continue;
        const detail = list as readonly Extract<RecordedOutcome, { reason: FailureReason }>[];
        await manager.query(
          `UPDATE messages
              SET state = ?, ${state === 'FAILED' ? 'failed_at = UTC_TIMESTAMP(3),' : 'claim_token = NULL, claimed_at = NULL,'}
                  reason = CASE id ${detail.map(() => 'WHEN ? THEN ?').join(' ')} END,
                  error_code = CASE id ${detail.map(() => 'WHEN ? THEN ?').join(' ')} END,
                  error_text = CASE id ${detail.map(() => 'WHEN ? THEN ?').join(' ')} END,
                  updated_at = UTC_TIMESTAMP(3)
            WHERE id IN (?)`,
          [
            state,
            ...detail.flatMap((o) => [o.id, o.reason]),
            ...detail.flatMap((o) => [o.id, o.code?.slice(0, 64) ?? null]),
            ...detail.flatMap((o) => [o.id, o.text?.slice(0, 1024) ?? null]),
            detail.map((o) => o.id),
          ],
        );
      }
      await moveCounters(
        manager,
        changes.map((c) => ({ runId: c.runId, from: c.previous, to: c.status })),
      );
      return changes;
    });
  }

  /**
   * SENDING rows claimed longer ago than the timeout become UNKNOWN (a sender died between claim and
   * result): counted and shown, never resent automatically. Returns the changes applied.
   */
  async expireClaims(olderThanMs: number, limit: number): Promise<StatusChange[]> {
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient FROM messages
          WHERE state = 'SENDING' AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
          ORDER BY claimed_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [olderThanMs * 1000, limit],
      )) as Row[];
      if (rows.length === 0) return [];
      await manager.query(
        `UPDATE messages SET state = 'UNKNOWN', reason = ?, updated_at = UTC_TIMESTAMP(3) WHERE id IN (?)`,
        [FailureReason.Timeout, rows.map((r) => String(r['id']))],
      );
      const changes: StatusChange[] = rows.map((r) => ({
        messageId: String(r['id']),
        runId: nullableString(r['run_id']),
        campaignId: String(r['campaign_id']),
        tenantId: String(r['tenant_id']),
        channel: r['channel'] as Channel,
        recipient: String(r['recipient']),
        previous: MessageStatus.Sending,
        status: MessageStatus.Unknown,
        reason: FailureReason.Timeout,
      }));
      await moveCounters(
        manager,
        changes.map((c) => ({ runId: c.runId, from: c.previous, to: c.status })),
      );
      return changes;
    });
  }

  /** A batch of a run is done (every message claimed, held or skipped): the expander's backpressure counts it. */
  async finishBatches(runIds: readonly string[]): Promise<void> {
    const counts = new Map<string, number>();
    for (const id of runIds) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const [runId, n] of counts) {
      await this.dataSource.query('UPDATE runs SET batches_finished = batches_finished + ? WHERE id = ?', [
        n,
        runId,
      ]);
    }
  }
}

function nullableString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
