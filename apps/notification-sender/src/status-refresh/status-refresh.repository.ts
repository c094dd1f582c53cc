import { Injectable } from '@nestjs/common';
import { MessageStatus } from '@ums/contracts';
import { NEVER_SQL, providerMessageIdOf, selectRows, type SqlRunner, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { RefreshCandidate, SettledCounts } from './status-refresh.plan';

type RefreshState = MessageStatus.Unknown | MessageStatus.Sent;

interface CandidateRow {
  readonly id: string;
  readonly run_id: string | null;
  readonly credential_id: string;
  readonly state: string;
  readonly recipient: string;
  readonly claimed_at: Date;
  readonly provider_message_id: string | null;
}

interface CursorRow {
  readonly claimed_at: Date;
  readonly message_id: string;
}

interface RequestRow {
  readonly id: string;
  readonly run_id: string;
  readonly cursor_state: string;
  readonly cursor_id: string;
}

interface CountRow {
  readonly n: number | string;
}

/** Where the periodic walk of one state's candidates stands: (claimed_at, id) of the last row served. */
export interface WalkCursor {
  readonly claimedAt: Date;
  readonly messageId: string;
}

/** An operator's open request: the run and where its walk stands. */
export interface OpenRequest {
  readonly id: string;
  readonly runId: string;
  readonly cursorState: RefreshState;
  readonly cursorId: string;
}

const COLUMNS = `m.id, m.run_id, m.credential_id, m.state, m.recipient, m.claimed_at,
  ${providerMessageIdOf('m.id')} AS provider_message_id`;

/** Counting candidates for the gauge reads at most this many index entries per state. */
const COUNT_CAP = 100_000;

/**
 * The rows a status refresh asks about and its bookkeeping. Candidates are read without locks
 * (the settlement is a compare-and-set on the state read); the periodic walk goes through
 * idx_messages_state_claimed in (claimed_at, id) order from a stored cursor, an operator's request
 * through idx_messages_run_state in id order.
 */
@Injectable()
export class StatusRefreshRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Up to `limit` rows in `state` claimed after the cursor and before `olderThanMs` ago (and, with
   * `notBeforeMs`, no longer ago than that), of credentials whose provider is in `providers`.
   */
  async walk(
    state: RefreshState,
    cursor: WalkCursor,
    window: { readonly olderThanMs: number; readonly notBeforeMs?: number },
    providers: readonly string[],
    limit: number,
  ): Promise<RefreshCandidate[]> {
    if (providers.length === 0) return [];
    const floor =
      window.notBeforeMs === undefined
        ? cursor
        : laterOf(cursor, { claimedAt: new Date(Date.now() - window.notBeforeMs), messageId: '0' });
    const rows = await selectRows<CandidateRow>(
      this.dataSource,
      `SELECT ${COLUMNS}
         FROM messages m FORCE INDEX (idx_messages_state_claimed)
         JOIN credentials c ON c.id = m.credential_id
        WHERE m.state = ? AND m.claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
          AND m.claimed_at >= ? AND (m.claimed_at > ? OR m.id > ?)
          AND c.provider IN (?)
        ORDER BY m.claimed_at, m.id LIMIT ?`,
      [state, window.olderThanMs * 1000, floor.claimedAt, floor.claimedAt, floor.messageId, providers, limit],
    );
    return rows.map(candidateOf);
  }

  /** The next UNKNOWN then SENT rows of a run after the request's cursor, in id order. */
  async ofRun(
    runId: string,
    state: RefreshState,
    afterId: string,
    limit: number,
  ): Promise<RefreshCandidate[]> {
    const rows = await selectRows<CandidateRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM messages m FORCE INDEX (idx_messages_run_state)
        WHERE m.run_id = ? AND m.state = ? AND m.id > ? ORDER BY m.id LIMIT ?`,
      [runId, state, afterId, limit],
    );
    return rows.map(candidateOf);
  }

  async cursor(state: RefreshState): Promise<WalkCursor> {
    const [row] = await selectRows<CursorRow>(
      this.dataSource,
      'SELECT claimed_at, message_id FROM status_refresh_cursors WHERE state = ?',
      [state],
    );
    return row === undefined
      ? { claimedAt: new Date(0), messageId: '0' }
      : { claimedAt: row.claimed_at, messageId: String(row.message_id) };
  }

  async saveCursor(state: RefreshState, cursor: WalkCursor): Promise<void> {
    await writeRows(
      this.dataSource,
      `INSERT INTO status_refresh_cursors (state, claimed_at, message_id, updated_at)
       VALUES (?, ?, ?, UTC_TIMESTAMP(3))
       ON DUPLICATE KEY UPDATE claimed_at = VALUES(claimed_at), message_id = VALUES(message_id),
                               updated_at = VALUES(updated_at)`,
      [state, cursor.claimedAt, cursor.messageId],
    );
  }

  /** The oldest open operator request. */
  async openRequest(): Promise<OpenRequest | undefined> {
    const [row] = await selectRows<RequestRow>(
      this.dataSource,
      `SELECT id, run_id, cursor_state, cursor_id FROM status_refresh_requests
        WHERE finished_at = ${NEVER_SQL} ORDER BY id LIMIT 1`,
    );
    if (row === undefined) return undefined;
    return {
      id: String(row.id),
      runId: String(row.run_id),
      cursorState: row.cursor_state === MessageStatus.Sent ? MessageStatus.Sent : MessageStatus.Unknown,
      cursorId: String(row.cursor_id),
    };
  }

  /** Adds a round's counts to a request and moves its cursor; `finished` closes it. */
  async advanceRequest(
    id: string,
    cursor: { readonly state: RefreshState; readonly id: string },
    counts: SettledCounts,
    finished: boolean,
  ): Promise<void> {
    await writeRows(
      this.dataSource,
      `UPDATE status_refresh_requests
          SET settled_sent = settled_sent + ?, settled_delivered = settled_delivered + ?,
              settled_read = settled_read + ?, settled_failed = settled_failed + ?,
              settled_not_received = settled_not_received + ?, unresolved = unresolved + ?,
              cursor_state = ?, cursor_id = ?,
              finished_at = ${finished ? 'UTC_TIMESTAMP(3)' : NEVER_SQL}
        WHERE id = ?`,
      [
        counts.sent,
        counts.delivered,
        counts.read,
        counts.failed,
        counts.notReceived,
        counts.unresolved,
        cursor.state,
        cursor.id,
        id,
      ],
    );
  }

  /** Of these provider ids, those that already name a message: a match that names another is not ours. */
  async namedProviderIds(manager: SqlRunner, providerIds: readonly string[]): Promise<Map<string, string>> {
    if (providerIds.length === 0) return new Map();
    const rows = await selectRows<{ message_id: string; provider_message_id: string }>(
      manager,
      'SELECT message_id, provider_message_id FROM message_provider_ids WHERE provider_message_id IN (?)',
      [[...new Set(providerIds)]],
    );
    return new Map(rows.map((r) => [r.provider_message_id, String(r.message_id)]));
  }

  /** Candidates waiting, per state (each capped at COUNT_CAP): the gauge. */
  async waiting(
    unknownAfterMs: number,
    sentCursor: WalkCursor,
    sentAfterMs: number,
  ): Promise<{ unknown: number; sent: number }> {
    const [unknown] = await selectRows<CountRow>(
      this.dataSource,
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM messages FORCE INDEX (idx_messages_state_claimed)
        WHERE state = 'UNKNOWN' AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND) LIMIT ?) t`,
      [unknownAfterMs * 1000, COUNT_CAP],
    );
    const [sent] = await selectRows<CountRow>(
      this.dataSource,
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM messages FORCE INDEX (idx_messages_state_claimed)
        WHERE state = 'SENT' AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
          AND claimed_at >= ? AND (claimed_at > ? OR id > ?) LIMIT ?) t`,
      [sentAfterMs * 1000, sentCursor.claimedAt, sentCursor.claimedAt, sentCursor.messageId, COUNT_CAP],
    );
    return { unknown: Number(unknown?.n ?? 0), sent: Number(sent?.n ?? 0) };
  }
}

function candidateOf(row: CandidateRow): RefreshCandidate {
  return {
    id: String(row.id),
    runId: row.run_id === null ? null : String(row.run_id),
    credentialId: row.credential_id,
    state: row.state === MessageStatus.Sent ? MessageStatus.Sent : MessageStatus.Unknown,
    recipient: row.recipient,
    providerMessageId: row.provider_message_id,
    claimedAt: row.claimed_at,
  };
}

function laterOf(a: WalkCursor, b: WalkCursor): WalkCursor {
  return a.claimedAt.getTime() >= b.claimedAt.getTime() ? a : b;
}
