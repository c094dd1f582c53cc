import { Injectable } from '@nestjs/common';
import { type Channel, FailureReason, MessageStatus } from '@ums/contracts';
import { decideStatus, MessageEvent, transitionMessage } from '@ums/domain';
import { jsonColumn, type JsonRowsColumn, jsonRows, jsonRowsTable } from '@ums/platform';
import { DataSource } from 'typeorm';
import { countFinishedBatch, foldCounterDeltas, type FoldResult, moveCounters } from './run-counters';

type Row = Record<string, unknown>;

/** The `processed_events` consumer under which finished batches are recorded, as `<run id>:<seq>`. */
export const FINISHED_BATCHES_INBOX = 'notification-sender.finished-batches';

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

interface OutcomeDetail {
  readonly reason: FailureReason;
  readonly code?: string;
  readonly text?: string;
}

/** What a send attempt ended with, for one claimed message. */
export type RecordedOutcome =
  | { readonly id: string; readonly kind: 'sent'; readonly providerMessageId: string | null }
  /** FAILED: a permanent rejection, or (exhausted) a retryable one with no tier left. */
  | ({ readonly id: string; readonly kind: 'failed'; readonly exhausted?: boolean } & OutcomeDetail)
  /** UNKNOWN: the provider may have it (no answer came back); never resent automatically. */
  | ({ readonly id: string; readonly kind: 'unknown' } & OutcomeDetail)
  /** Back to PENDING for a retry tier; notSent gives back the attempt its claim counted. */
  | ({ readonly id: string; readonly kind: 'released'; readonly notSent?: boolean } & OutcomeDetail);

type FailureOutcome = Exclude<RecordedOutcome, { kind: 'sent' }>;

const SENT_COLUMNS: readonly JsonRowsColumn[] = [
  { name: 'id', type: 'BIGINT UNSIGNED' },
  { name: 'provider_message_id', type: 'VARCHAR(256)' },
];

const FAILURE_COLUMNS: readonly JsonRowsColumn[] = [
  { name: 'id', type: 'BIGINT UNSIGNED' },
  { name: 'reason', type: 'VARCHAR(32)' },
  { name: 'error_code', type: 'VARCHAR(64)' },
  { name: 'error_text', type: 'VARCHAR(1024)' },
  { name: 'give_back', type: 'BIGINT UNSIGNED' },
];

const EVENT_OF: Readonly<Record<RecordedOutcome['kind'], MessageEvent>> = {
  sent: MessageEvent.Accept,
  failed: MessageEvent.RejectPermanent,
  unknown: MessageEvent.OutcomeAmbiguous,
  released: MessageEvent.ReleaseForRetry,
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
 * Every statement covers a whole batch; run counter deltas are written in the same transaction as the
 * rows (and folded into `runs` a moment later, see run-counters.ts).
 */
@Injectable()
export class MessageClaimsRepository {
  constructor(private readonly dataSource: DataSource) {}

  // Every statement that reads or writes messages by an id list names the primary key: on a small
  // table MariaDB scans the whole index for an UPDATE ... WHERE id IN (...), locking every row
  // (PENDING ones of other batches too) until commit, and concurrent claims would skip them.
  async claim(ids: readonly string[], token: string): Promise<ClaimResult> {
    if (ids.length === 0) return { claimed: [], held: [], skipped: [] };
    return this.dataSource.transaction(async (manager) => {
      // By primary key only: a plan through the state index would lock (and make concurrent
      // claimers skip) PENDING rows of other batches that this claim never takes. The run's state is
      // read in the same statement without a lock (a subquery of a locking read locks nothing: MySQL
      // documents it, and a concurrent UPDATE of the run did not wait on MariaDB 10.11): a pause racing with this claim lets at most this batch through.
      const rows = (await manager.query(
        `SELECT m.id, m.run_id, m.campaign_id, m.tenant_id, m.channel, m.credential_id, m.recipient, m.attempts,
                m.content, (SELECT r.state FROM runs r WHERE r.id = m.run_id) AS run_state
           FROM messages m FORCE INDEX (PRIMARY)
          WHERE m.id IN (?) AND m.state = 'PENDING' FOR UPDATE SKIP LOCKED`,
        [ids],
      )) as Row[];
      const claimable = rows.filter((r) => r['run_id'] === null || r['run_state'] === 'RUNNING');
      const held = rows.filter((r) => !claimable.includes(r)).map((r) => String(r['id']));
      const found = new Set(rows.map((r) => String(r['id'])));
      const skipped = ids.filter((id) => !found.has(id));
      if (claimable.length > 0) {
        await manager.query(
          `UPDATE messages FORCE INDEX (PRIMARY) SET state = 'SENDING', claim_token = ?, claimed_at = UTC_TIMESTAMP(3),
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
   * Renews a claim right before its provider call: `claimed_at` of the rows still SENDING under this
   * token becomes now, so the expiry sweep leaves them alone for another SENDER_CLAIM_TIMEOUT_MS.
   * Returns the ids still held (the others expired meanwhile and must not be sent). One UPDATE; the
   * held rows are read only when some were lost.
   */
  async refresh(token: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const updated = (await this.dataSource.query(
      `UPDATE messages FORCE INDEX (PRIMARY) SET claimed_at = UTC_TIMESTAMP(3)
        WHERE id IN (?) AND claim_token = ? AND state = 'SENDING'`,
      [unique, token],
    )) as { affectedRows: number };
    // mysql2 counts matched rows (CLIENT_FOUND_ROWS), so a claimed_at already equal still counts.
    if (updated.affectedRows === unique.length) return unique;
    const rows = (await this.dataSource.query(
      `SELECT id FROM messages FORCE INDEX (PRIMARY) WHERE id IN (?) AND claim_token = ? AND state = 'SENDING'`,
      [unique, token],
    )) as Row[];
    return rows.map((r) => String(r['id']));
  }

  /**
   * Gives claimed rows back (SENDING -> PENDING) when something failed before their provider call:
   * nothing was sent, so the attempt the claim counted is given back and no status event is due
   * (the claim itself announced none). Only rows still SENDING under this token; returns how many.
   */
  async release(token: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, run_id FROM messages FORCE INDEX (PRIMARY)
          WHERE id IN (?) AND claim_token = ? AND state = 'SENDING' FOR UPDATE`,
        [[...new Set(ids)], token],
      )) as Row[];
      if (rows.length === 0) return 0;
      await manager.query(
        `UPDATE messages FORCE INDEX (PRIMARY)
            SET state = 'PENDING', claim_token = NULL, claimed_at = NULL,
                attempts = GREATEST(CAST(attempts AS SIGNED) - 1, 0), updated_at = UTC_TIMESTAMP(3)
          WHERE id IN (?)`,
        [rows.map((r) => String(r['id']))],
      );
      await moveCounters(
        manager,
        rows.map((r) => ({
          runId: nullableString(r['run_id']),
          from: MessageStatus.Sending,
          to: MessageStatus.Pending,
        })),
      );
      return rows.length;
    });
  }

  /**
   * Records outcomes of claimed messages: SENT (with the provider id), FAILED (reason and code),
   * UNKNOWN (ambiguous), or back to PENDING for a retry tier. Rows still SENDING under this claim
   * token change. A claim that expired meanwhile (UNKNOWN, same token) still takes a SENT result, as
   * the provider's word settles UNKNOWN (decideStatus): its provider id is kept, so its callbacks
   * find it. One UPDATE per kind, the run counters in the same transaction.
   */
  async record(token: string, outcomes: readonly RecordedOutcome[]): Promise<StatusChange[]> {
    if (outcomes.length === 0) return [];
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient, state FROM messages FORCE INDEX (PRIMARY)
          WHERE id IN (?) AND claim_token = ? AND state IN ('SENDING', 'UNKNOWN') FOR UPDATE`,
        [outcomes.map((o) => o.id), token],
      )) as Row[];
      const byId = new Map(rows.map((r) => [String(r['id']), r]));
      const changes: StatusChange[] = [];
      const sent: Extract<RecordedOutcome, { kind: 'sent' }>[] = [];
      const failures = new Map<MessageStatus, FailureOutcome[]>();
      for (const outcome of outcomes) {
        const row = byId.get(outcome.id);
        if (row === undefined) continue;
        byId.delete(outcome.id); // an id given twice is recorded once
        const previous = row['state'] as MessageStatus;
        const transition = transitionOf(previous, outcome);
        if (!transition.ok) continue;
        if (outcome.kind === 'sent') sent.push(outcome);
        else {
          const list = failures.get(transition.next);
          if (list === undefined) failures.set(transition.next, [outcome]);
          else list.push(outcome);
        }
        changes.push({
          messageId: outcome.id,
          runId: nullableString(row['run_id']),
          campaignId: String(row['campaign_id']),
          tenantId: String(row['tenant_id']),
          channel: row['channel'] as Channel,
          recipient: String(row['recipient']),
          previous,
          status: transition.next,
          ...(outcome.kind === 'sent'
            ? outcome.providerMessageId === null
              ? {}
              : { providerMessageId: outcome.providerMessageId }
            : {
                reason: outcome.reason,
                errorCode: outcome.code?.slice(0, 64),
                errorText: outcome.text?.slice(0, 1024),
              }),
        });
      }
      // Per-row values come in as one JSON document (jsonRowsTable): CASE id WHEN ... lists are
      // scanned for every row, quadratic in the batch.
      if (sent.length > 0) {
        await manager.query(
          `UPDATE messages m FORCE INDEX (PRIMARY) JOIN ${jsonRowsTable(SENT_COLUMNS, 'v')} ON m.id = v.id
              SET m.state = 'SENT', m.sent_at = UTC_TIMESTAMP(3), m.updated_at = UTC_TIMESTAMP(3),
                  m.provider_message_id = v.provider_message_id`,
          [
            jsonRows(
              SENT_COLUMNS,
              sent.map((s) => ({ id: s.id, provider_message_id: s.providerMessageId })),
            ),
          ],
        );
      }
      for (const [state, list] of failures) {
        const extra =
          state === MessageStatus.Failed
            ? 'm.failed_at = UTC_TIMESTAMP(3),'
            : state === MessageStatus.Pending
              ? `m.claim_token = NULL, m.claimed_at = NULL,
                 m.attempts = GREATEST(CAST(m.attempts AS SIGNED) - CAST(v.give_back AS SIGNED), 0),`
              : '';
        await manager.query(
          `UPDATE messages m FORCE INDEX (PRIMARY) JOIN ${jsonRowsTable(FAILURE_COLUMNS, 'v')} ON m.id = v.id
              SET m.state = ?, ${extra}
                  m.reason = v.reason, m.error_code = v.error_code, m.error_text = v.error_text,
                  m.updated_at = UTC_TIMESTAMP(3)`,
          [
            jsonRows(
              FAILURE_COLUMNS,
              list.map((o) => ({
                id: o.id,
                reason: o.reason,
                error_code: o.code?.slice(0, 64) ?? null,
                error_text: o.text?.slice(0, 1024) ?? null,
                // A release of a message never sent gives its attempt back.
                give_back: o.kind === 'released' && o.notSent === true ? '1' : '0',
              })),
            ),
            state,
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
   * The send results already recorded for these messages (SENT, FAILED or UNKNOWN, as their
   * claim's owner left them). A batch delivered again after its sender died between recording and
   * publishing finds its rows settled: their status events are published again from here (same
   * event ids, so consumers dedupe), and none is lost. Locked rows are read as they were before.
   */
  async settledChanges(ids: readonly string[]): Promise<StatusChange[]> {
    if (ids.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT id, run_id, campaign_id, tenant_id, channel, recipient, state, provider_message_id,
              reason, error_code, error_text
         FROM messages
        WHERE id IN (?) AND state IN ('SENT', 'FAILED', 'UNKNOWN') AND attempts > 0`,
      [ids],
    )) as Row[];
    return rows.map((r) => {
      const optional = (column: string): string | undefined =>
        r[column] === null || r[column] === undefined ? undefined : String(r[column]);
      const change: StatusChange = {
        messageId: String(r['id']),
        runId: nullableString(r['run_id']),
        campaignId: String(r['campaign_id']),
        tenantId: String(r['tenant_id']),
        channel: r['channel'] as Channel,
        recipient: String(r['recipient']),
        previous: MessageStatus.Sending,
        status: r['state'] as MessageStatus,
        providerMessageId: optional('provider_message_id'),
        reason: optional('reason') as FailureReason | undefined,
        errorCode: optional('error_code'),
        errorText: optional('error_text'),
      };
      return change;
    });
  }

  /**
   * SENDING rows claimed longer ago than the timeout become UNKNOWN (a sender died between claim and
   * result): counted and shown, never resent automatically. `beforeCommit` publishes the changes
   * while the rows are still locked: a crash before the commit leaves them SENDING for the next
   * sweep (which publishes the same event ids again), so no UNKNOWN goes unannounced. Returns the
   * changes applied.
   */
  async expireClaims(
    olderThanMs: number,
    limit: number,
    beforeCommit: (changes: readonly StatusChange[]) => Promise<void>,
  ): Promise<StatusChange[]> {
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        // Through the (state, claimed_at) index only: a table scan would lock every row it reads
        // (PENDING ones too) until commit, and make claimers skip them.
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient
           FROM messages FORCE INDEX (idx_messages_state_claimed)
          WHERE state = 'SENDING' AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
          ORDER BY claimed_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [olderThanMs * 1000, limit],
      )) as Row[];
      if (rows.length === 0) return [];
      await manager.query(
        `UPDATE messages FORCE INDEX (PRIMARY) SET state = 'UNKNOWN', reason = ?, updated_at = UTC_TIMESTAMP(3) WHERE id IN (?)`,
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
      await beforeCommit(changes);
      return changes;
    });
  }

  /**
   * Which of these messages are not settled (PENDING or SENDING), read without a lock: a claim skips
   * rows another transaction holds, and a SENDING row may be released for a retry any moment, so
   * these must be offered again, not dropped.
   */
  async unsettledAmong(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT id FROM messages FORCE INDEX (PRIMARY) WHERE id IN (?) AND state IN ('PENDING', 'SENDING')`,
      [ids],
    )) as Row[];
    return rows.map((r) => String(r['id']));
  }

  /**
   * A batch of a run is done (every message claimed, held or skipped): the expander's backpressure
   * counts it, once per (run, seq). A batch handled again (redelivered after a sender died before its
   * offset was committed, or re-published by an expander that died before its checkpoint, which
   * reuses the seq) is not counted twice: its inbox row in `processed_events` is written in the same
   * transaction as the count. Counting it twice let `batches_finished` pass `batches_published`.
   */
  async finishBatch(runId: string, seq: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const inserted = (await manager.query(
        'INSERT IGNORE INTO processed_events (consumer, event_id) VALUES (?, ?)',
        [FINISHED_BATCHES_INBOX, `${runId}:${seq}`],
      )) as { affectedRows: number };
      if (inserted.affectedRows === 1) await countFinishedBatch(manager, runId);
    });
  }

  /**
   * Deletes up to `limit` finished-batch inbox rows recorded longer than `olderThanMs` ago, oldest
   * first through the `processed_at` index; returns how many went. Replicas may prune side by side:
   * the second DELETE waits for the first and finds its rows gone.
   */
  async pruneFinishedBatches(olderThanMs: number, limit: number): Promise<number> {
    const result = (await this.dataSource.query(
      `DELETE FROM processed_events
        WHERE consumer = ? AND processed_at < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND
        ORDER BY processed_at LIMIT ?`,
      [FINISHED_BATCHES_INBOX, olderThanMs * 1000, limit],
    )) as { affectedRows: number };
    return result.affectedRows;
  }

  /**
   * Folds committed counter deltas into `runs` (see foldCounterDeltas); nothing when another
   * replica is folding. One folder at a time (a named lock per database): side by side they
   * deadlocked (each DELETE waiting for a row the other had selected) and could apply a decrement
   * before its increment. READ COMMITTED takes record locks only, so writers' inserts never wait
   * for a folder's gap locks.
   */
  async foldCounters(limit: number): Promise<FoldResult> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [lock] = (await runner.query(
        `SELECT GET_LOCK(CONCAT('ums.fold_counters.', DATABASE()), 0) AS acquired`,
      )) as { acquired: number | string | null }[];
      if (Number(lock?.acquired) !== 1) return { folded: 0, clamped: [] };
      try {
        await runner.startTransaction('READ COMMITTED');
        const folded = await foldCounterDeltas(runner.manager, limit);
        await runner.commitTransaction();
        return folded;
      } catch (error: unknown) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        throw error;
      } finally {
        await runner.query(`DO RELEASE_LOCK(CONCAT('ums.fold_counters.', DATABASE()))`);
      }
    } finally {
      await runner.release();
    }
  }
}

/**
 * The state an outcome leads to: from SENDING by the state machine; from UNKNOWN (the claim expired
 * while the request was out) only for SENT, as the provider's word settles UNKNOWN.
 */
function transitionOf(
  previous: MessageStatus,
  outcome: RecordedOutcome,
): { readonly ok: true; readonly next: MessageStatus } | { readonly ok: false } {
  if (previous === MessageStatus.Unknown) {
    if (outcome.kind !== 'sent') return { ok: false };
    const decision = decideStatus(previous, MessageStatus.Sent);
    return decision.apply ? { ok: true, next: decision.next } : { ok: false };
  }
  const event =
    outcome.kind === 'failed' && outcome.exhausted === true
      ? MessageEvent.ExhaustRetries
      : EVENT_OF[outcome.kind];
  return transitionMessage(MessageStatus.Sending, event);
}

function nullableString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
