import { Injectable } from '@nestjs/common';
import { type Channel, FailureReason, MessageStatus } from '@ums/contracts';
import {
  jsonColumn,
  NEVER_SQL,
  providerMessageIdOf,
  type JsonRowsColumn,
  jsonRows,
  jsonRowsTable,
  selectRows,
  type SqlRunner,
  withNamedLock,
  writeRows,
} from '@ums/platform';
import { DataSource } from 'typeorm';
import { type ClaimCredits, ClaimCreditsRepository } from '../credits/claim-credits.repository';
import { CreditLedgerRepository, type RefundRow } from '../credits/credit-ledger.repository';
import type { RenderedClaim } from './content-rendering.service';
import {
  ERROR_CODE_CHARS,
  ERROR_TEXT_CHARS,
  type FailureOutcome,
  planRecord,
  type RecordableRow,
  type RecordedOutcome,
  type SentOutcome,
} from './recorded-outcome';
import {
  countFinishedBatch,
  foldCounterDeltas,
  type FoldResult,
  moveCounters,
  type RunTotals,
} from './run-counters';
import { type ChangedMessageRow, type StatusChange, statusChangeOf } from './status-change';

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
  /** PENDING messages whose recipient opted out since they were created: SKIPPED (opted-out) instead. */
  readonly optedOut: StatusChange[];
  /** The claimed messages rendered in the claim (when it was given a renderer), credit refusals included. */
  readonly rendered?: RenderedClaim;
  /** Of `held`: PENDING messages of runs the tenant's credits or quota did not cover (their runs paused). */
  readonly creditHeld: number;
}

/** Renders the claimable messages inside the claim, so that their segments and charges go with it. */
export type ClaimRenderer = (claimable: readonly ClaimedMessage[]) => Promise<RenderedClaim>;

/** A message's id (BIGINT UNSIGNED). */
interface IdRow {
  readonly id: string;
}

/** A message row and the run it counts in. */
interface RunMessageRow extends IdRow {
  readonly run_id: string | null;
}

/** A PENDING row a claim locked, with its run's state (NULL for single sends). */
interface ClaimRow extends RunMessageRow {
  readonly campaign_id: string;
  readonly tenant_id: string;
  readonly channel: string;
  readonly credential_id: string;
  readonly recipient: string;
  /** SMALLINT UNSIGNED: attempts before this claim. */
  readonly attempts: number;
  /** JSON (text on MariaDB) or NULL. */
  readonly content: unknown;
  /** BIGINT UNSIGNED: credits held from an earlier attempt. */
  readonly charge: string;
  /** The account's price (BIGINT UNSIGNED), NULL when the tenant is not metered on the channel. */
  readonly price: string | null;
  readonly run_state: string | null;
  /** 0 or 1, an INT or a BIGINT (a string here) by server: the recipient is in opt_outs. */
  readonly opted_out: number | string;
}

/** A settled row (SENT, FAILED or UNKNOWN) as its claim's owner left it. */
interface SettledRow extends RecordableRow {
  readonly provider_message_id: string | null;
  readonly reason: string | null;
  readonly error_code: string | null;
  readonly error_text: string | null;
}

/** A row a record or release locked, with what credits and run totals need. */
interface ChargedRow extends RecordableRow {
  /** BIGINT UNSIGNED. */
  readonly charge: string;
  readonly segments: number;
}

/** What the claim's UPDATE writes per row: its segments, encoding and the charge added now. */
const CLAIM_COLUMNS: readonly JsonRowsColumn[] = [
  { name: 'id', type: 'BIGINT UNSIGNED' },
  { name: 'segments', type: 'BIGINT UNSIGNED' },
  { name: 'encoding', type: 'VARCHAR(4)' },
  { name: 'charge', type: 'BIGINT UNSIGNED' },
];

const FAILURE_COLUMNS: readonly JsonRowsColumn[] = [
  { name: 'id', type: 'BIGINT UNSIGNED' },
  { name: 'reason', type: 'VARCHAR(32)' },
  { name: 'error_code', type: 'VARCHAR(64)' },
  { name: 'error_text', type: 'VARCHAR(1024)' },
  { name: 'give_back', type: 'BIGINT UNSIGNED' },
];

/**
 * The exactly-once core: a message is claimed in MySQL (PENDING -> SENDING with a claim token,
 * SELECT ... FOR UPDATE SKIP LOCKED) before any provider call, and its outcome is recorded only by
 * the claim's owner. A claim never recorded becomes UNKNOWN and is never resent automatically.
 * Every statement covers a whole batch; run counter deltas are written in the same transaction as the
 * rows (and folded into `runs` a moment later, see run-counters.ts).
 */
@Injectable()
export class MessageClaimsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly credits: ClaimCreditsRepository,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  // Every statement that reads or writes messages by an id list names the primary key: on a small
  // table MariaDB scans the whole index for an UPDATE ... WHERE id IN (...), locking every row
  // (PENDING ones of other batches too) until commit, and concurrent claims would skip them.
  async claim(ids: readonly string[], token: string, render?: ClaimRenderer): Promise<ClaimResult> {
    if (ids.length === 0) return { claimed: [], held: [], skipped: [], optedOut: [], creditHeld: 0 };
    return this.dataSource.transaction(async (manager) => {
      // By primary key only: a plan through the state index would lock (and make concurrent
      // claimers skip) PENDING rows of other batches that this claim never takes. The run's state is
      // read in the same statement without a lock (a subquery of a locking read locks nothing: MySQL
      // documents it, and a concurrent UPDATE of the run did not wait on MariaDB 10.11): a pause racing with this claim lets at most this batch through.
      // Opt-outs likewise, a primary-key lookup per row: one recorded after the row was created (an
      // import while the run is running) stops the send here, so it takes effect within a batch.
      const rows = await selectRows<ClaimRow>(
        manager,
        `SELECT m.id, m.run_id, m.campaign_id, m.tenant_id, m.channel, m.credential_id, m.recipient, m.attempts,
                m.content, m.charge, (SELECT r.state FROM runs r WHERE r.id = m.run_id) AS run_state,
                (SELECT a.price FROM credit_accounts a WHERE a.tenant_id = m.tenant_id AND a.channel = m.channel)
                  AS price,
                EXISTS (SELECT 1 FROM opt_outs o
                         WHERE o.tenant_id = m.tenant_id AND o.channel = m.channel AND o.address = m.recipient)
                  AS opted_out
           FROM messages m FORCE INDEX (PRIMARY)
          WHERE m.id IN (?) AND m.state = 'PENDING' FOR UPDATE SKIP LOCKED`,
        [ids],
      );
      const sendable = rows.filter((r) => r.run_id === null || r.run_state === 'RUNNING');
      const held = rows.filter((r) => !sendable.includes(r)).map((r) => r.id);
      const optedOut = sendable.filter((r) => Number(r.opted_out) === 1);
      const found = new Set(rows.map((r) => r.id));
      const skipped = ids.filter((id) => !found.has(id));
      // Rendered inside the claim: the segments and charges are written by the claim's UPDATE.
      const candidates = sendable.filter((r) => Number(r.opted_out) !== 1);
      const rendered = render === undefined ? undefined : await render(candidates.map(claimedMessageOf));
      const credits = await this.credits.claim(
        manager,
        token,
        candidates.map(creditRowOf),
        rendered?.outgoing,
      );
      const claimable = candidates.filter((r) => !credits.held.has(r.id));
      held.push(...credits.held.keys());
      if (claimable.length > 0) await writeClaim(manager, token, claimable, credits);
      if (optedOut.length > 0) await skipOptedOut(manager, optedOut);
      return {
        claimed: claimable.map(claimedMessageOf),
        rendered: rendered === undefined ? undefined : withCredits(rendered, credits),
        creditHeld: credits.held.size,
        held,
        skipped,
        optedOut: optedOut.map((r) => ({
          ...statusChangeOf(r, MessageStatus.Pending, MessageStatus.Skipped),
          reason: FailureReason.OptedOut,
        })),
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
    const updated = await writeRows(
      this.dataSource,
      `UPDATE messages FORCE INDEX (PRIMARY) SET claimed_at = UTC_TIMESTAMP(3)
        WHERE id IN (?) AND claim_token = ? AND state = 'SENDING'`,
      [unique, token],
    );
    // mysql2 counts matched rows (CLIENT_FOUND_ROWS), so a claimed_at already equal still counts.
    if (updated.affectedRows === unique.length) return unique;
    const rows = await selectRows<IdRow>(
      this.dataSource,
      `SELECT id FROM messages FORCE INDEX (PRIMARY) WHERE id IN (?) AND claim_token = ? AND state = 'SENDING'`,
      [unique, token],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Gives claimed rows back (SENDING -> PENDING) when something failed before their provider call:
   * nothing was sent, so the attempt the claim counted is given back and no status event is due
   * (the claim itself announced none). Only rows still SENDING under this token; returns how many.
   */
  async release(token: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.dataSource.transaction(async (manager) => {
      const rows = await selectRows<ChargedRow>(
        manager,
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient, state, charge, segments
           FROM messages FORCE INDEX (PRIMARY)
          WHERE id IN (?) AND claim_token = ? AND state = 'SENDING' FOR UPDATE`,
        [[...new Set(ids)], token],
      );
      if (rows.length === 0) return 0;
      await writeRows(
        manager,
        `UPDATE messages FORCE INDEX (PRIMARY)
            SET state = 'PENDING', claim_token = '', claimed_at = ${NEVER_SQL},
                attempts = GREATEST(CAST(attempts AS SIGNED) - 1, 0), updated_at = UTC_TIMESTAMP(3)
          WHERE id IN (?)`,
        [rows.map((r) => r.id)],
      );
      await moveCounters(
        manager,
        rows.map((r) => ({ runId: r.run_id, from: MessageStatus.Sending, to: MessageStatus.Pending })),
      );
      await this.ledger.refundUnsent(manager, rows.map(refundRowOf));
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
      const rows = await selectRows<ChargedRow>(
        manager,
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient, state, charge, segments
           FROM messages FORCE INDEX (PRIMARY)
          WHERE id IN (?) AND claim_token = ? AND state IN ('SENDING', 'UNKNOWN') FOR UPDATE`,
        [outcomes.map((o) => o.id), token],
      );
      const plan = planRecord(rows, outcomes);
      await writeSent(manager, plan.sent);
      for (const [state, list] of plan.failures) await writeFailures(manager, state, list);
      const byId = new Map(rows.map((row) => [row.id, row]));
      await moveCounters(
        manager,
        plan.changes.map((c) => ({ runId: c.runId, from: c.previous, to: c.status })),
        sentSegments(plan.sent.map((s) => byId.get(s.id))),
      );
      // FAILED (refused before or by the provider) and back to PENDING were not sent: their charge goes back.
      const unsent = [...plan.failures]
        .filter(([state]) => state === MessageStatus.Failed || state === MessageStatus.Pending)
        .flatMap(([, list]) => list.map((o) => byId.get(o.id)));
      await this.ledger.refundUnsent(manager, unsent.filter(isDefined).map(refundRowOf));
      return plan.changes;
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
    const rows = await selectRows<SettledRow>(
      this.dataSource,
      `SELECT m.id, m.run_id, m.campaign_id, m.tenant_id, m.channel, m.recipient, m.state,
              ${providerMessageIdOf('m.id')} AS provider_message_id, m.reason, m.error_code, m.error_text
         FROM messages m
        WHERE m.id IN (?) AND m.state IN ('SENT', 'FAILED', 'UNKNOWN') AND m.attempts > 0`,
      [ids],
    );
    return rows.map(settledChangeOf);
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
      const rows = await selectRows<ChangedMessageRow>(
        manager,
        // Through the (state, claimed_at) index only: a table scan would lock every row it reads
        // (PENDING ones too) until commit, and make claimers skip them.
        `SELECT id, run_id, campaign_id, tenant_id, channel, recipient
           FROM messages FORCE INDEX (idx_messages_state_claimed)
          WHERE state = 'SENDING' AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
          ORDER BY claimed_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [olderThanMs * 1000, limit],
      );
      if (rows.length === 0) return [];
      await writeRows(
        manager,
        `UPDATE messages FORCE INDEX (PRIMARY) SET state = 'UNKNOWN', reason = ?, updated_at = UTC_TIMESTAMP(3) WHERE id IN (?)`,
        [FailureReason.Timeout, rows.map((r) => r.id)],
      );
      const changes = rows.map(expiredChangeOf);
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
    const rows = await selectRows<IdRow>(
      this.dataSource,
      `SELECT id FROM messages FORCE INDEX (PRIMARY) WHERE id IN (?) AND state IN ('PENDING', 'SENDING')`,
      [ids],
    );
    return rows.map((r) => r.id);
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
      const inserted = await writeRows(
        manager,
        'INSERT IGNORE INTO processed_events (consumer, event_id) VALUES (?, ?)',
        [FINISHED_BATCHES_INBOX, `${runId}:${seq}`],
      );
      if (inserted.affectedRows === 1) await countFinishedBatch(manager, runId);
    });
  }

  /**
   * Deletes up to `limit` finished-batch inbox rows recorded longer than `olderThanMs` ago, oldest
   * first through the `processed_at` index; returns how many went. Replicas may prune side by side:
   * the second DELETE waits for the first and finds its rows gone.
   */
  async pruneFinishedBatches(olderThanMs: number, limit: number): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      `DELETE FROM processed_events
        WHERE consumer = ? AND processed_at < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND
        ORDER BY processed_at LIMIT ?`,
      [FINISHED_BATCHES_INBOX, olderThanMs * 1000, limit],
    );
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
    const lock = { name: 'ums.fold_counters.', waitSeconds: 0, perDatabase: true };
    const result = await withNamedLock(this.dataSource, lock, async (runner) => {
      try {
        await runner.startTransaction('READ COMMITTED');
        const folded = await foldCounterDeltas(runner.manager, limit);
        await runner.commitTransaction();
        return folded;
      } catch (error: unknown) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        throw error;
      }
    });
    return result.acquired ? result.value : { folded: 0, clamped: [] };
  }
}

/**
 * The SENT rows of a record, and their provider ids in `message_provider_ids` (the row keeps its
 * length: an update in place). A message recorded again after a release keeps its latest id.
 */
async function writeSent(manager: SqlRunner, sent: readonly SentOutcome[]): Promise<void> {
  if (sent.length === 0) return;
  await writeRows(
    manager,
    `UPDATE messages FORCE INDEX (PRIMARY)
        SET state = 'SENT', sent_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
      WHERE id IN (?)`,
    [sent.map((s) => s.id)],
  );
  const named = sent.flatMap((s) =>
    s.providerMessageId === null || s.providerMessageId === '' ? [] : [[s.id, s.providerMessageId]],
  );
  if (named.length === 0) return;
  await writeRows(
    manager,
    `INSERT INTO message_provider_ids (message_id, provider_message_id)
     VALUES ${named.map(() => '(?, ?)').join(', ')}
     ON DUPLICATE KEY UPDATE provider_message_id = VALUES(provider_message_id)`,
    named.flat(),
  );
}

/**
 * The rows of a record that go to `state` (FAILED, UNKNOWN, or back to PENDING for a retry tier),
 * with their reasons, in one UPDATE. A release of a message never sent gives its attempt back.
 */
async function writeFailures(
  manager: SqlRunner,
  state: MessageStatus,
  list: readonly FailureOutcome[],
): Promise<void> {
  const extra =
    state === MessageStatus.Failed
      ? 'm.failed_at = UTC_TIMESTAMP(3),'
      : state === MessageStatus.Pending
        ? `m.claim_token = '', m.claimed_at = ${NEVER_SQL},
           m.attempts = GREATEST(CAST(m.attempts AS SIGNED) - CAST(v.give_back AS SIGNED), 0),`
        : '';
  await writeRows(
    manager,
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
          error_code: o.code?.slice(0, ERROR_CODE_CHARS) ?? null,
          error_text: o.text?.slice(0, ERROR_TEXT_CHARS) ?? null,
          give_back: o.kind === 'released' && o.notSent === true ? '1' : '0',
        })),
      ),
      state,
    ],
  );
}

/** PENDING rows whose recipient opted out become SKIPPED (opted-out), counted on their runs. */
async function skipOptedOut(manager: SqlRunner, rows: readonly ClaimRow[]): Promise<void> {
  await writeRows(
    manager,
    `UPDATE messages FORCE INDEX (PRIMARY) SET state = 'SKIPPED', reason = ?, updated_at = UTC_TIMESTAMP(3)
      WHERE id IN (?)`,
    [FailureReason.OptedOut, rows.map((r) => r.id)],
  );
  await moveCounters(
    manager,
    rows.map((r) => ({ runId: r.run_id, from: MessageStatus.Pending, to: MessageStatus.Skipped })),
  );
}

/** The claim's UPDATE: SENDING under the token, with each row's segments, encoding and new charge. */
async function writeClaim(
  manager: SqlRunner,
  token: string,
  rows: readonly ClaimRow[],
  credits: ClaimCredits,
): Promise<void> {
  await writeRows(
    manager,
    `UPDATE messages m FORCE INDEX (PRIMARY) JOIN ${jsonRowsTable(CLAIM_COLUMNS, 'v')} ON m.id = v.id
        SET m.state = 'SENDING', m.claim_token = ?, m.claimed_at = UTC_TIMESTAMP(3), m.attempts = m.attempts + 1,
            m.segments = v.segments, m.encoding = v.encoding, m.charge = m.charge + v.charge,
            m.updated_at = UTC_TIMESTAMP(3)`,
    [
      jsonRows(
        CLAIM_COLUMNS,
        rows.map((r) => {
          const units = credits.units.get(r.id);
          return {
            id: r.id,
            segments: String(units?.segments ?? 0),
            encoding: units?.encoding ?? '',
            charge: String(credits.charges.get(r.id) ?? 0),
          };
        }),
      ),
      token,
    ],
  );
  const totals = new Map<string, RunTotals>(
    [...credits.chargedPerRun].map(([runId, charged]) => [runId, { charged }]),
  );
  await moveCounters(
    manager,
    rows.map((r) => ({ runId: r.run_id, from: MessageStatus.Pending, to: MessageStatus.Sending })),
    totals,
  );
}

/** The rendered claim with single sends the credits refused taken out of the provider call. */
function withCredits(rendered: RenderedClaim, credits: ClaimCredits): RenderedClaim {
  if (credits.refused.size === 0 && credits.held.size === 0) return rendered;
  const results = new Map([...rendered.results].filter(([id]) => !credits.held.has(id)));
  for (const [id, result] of credits.refused) results.set(id, result);
  return {
    results,
    outgoing: rendered.outgoing.filter(
      (o) => !credits.refused.has(o.messageId) && !credits.held.has(o.messageId),
    ),
  };
}

/** Segments of the rows recorded SENT, per run. */
function sentSegments(rows: readonly (ChargedRow | undefined)[]): Map<string, RunTotals> {
  const perRun = new Map<string, RunTotals>();
  for (const row of rows) {
    if (row?.run_id == null || row.segments === 0) continue;
    perRun.set(row.run_id, { segments: (perRun.get(row.run_id)?.segments ?? 0) + row.segments });
  }
  return perRun;
}

function creditRowOf(row: ClaimRow) {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    channel: row.channel,
    runId: row.run_id,
    charge: Number(row.charge),
    price: row.price === null ? null : Number(row.price),
  };
}

function refundRowOf(row: ChargedRow): RefundRow {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    channel: row.channel,
    runId: row.run_id,
    charge: Number(row.charge),
    units: row.channel === 'sms' ? row.segments : 1,
  };
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

function claimedMessageOf(row: ClaimRow): ClaimedMessage {
  return {
    id: row.id,
    runId: row.run_id,
    campaignId: row.campaign_id,
    tenantId: row.tenant_id,
    channel: row.channel as Channel,
    credentialId: row.credential_id,
    recipient: row.recipient,
    attempts: row.attempts + 1,
    stored: row.content === null ? null : jsonColumn(row.content),
  };
}

function settledChangeOf(row: SettledRow): StatusChange {
  return {
    ...statusChangeOf(row, MessageStatus.Sending, row.state as MessageStatus),
    providerMessageId: row.provider_message_id ?? undefined,
    reason: (row.reason ?? undefined) as FailureReason | undefined,
    errorCode: row.error_code ?? undefined,
    errorText: row.error_text ?? undefined,
  };
}

function expiredChangeOf(row: ChangedMessageRow): StatusChange {
  return {
    ...statusChangeOf(row, MessageStatus.Sending, MessageStatus.Unknown),
    reason: FailureReason.Timeout,
  };
}
