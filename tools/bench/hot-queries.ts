import {
  archivableRunsStatement,
  copyProviderIdsStatement,
  copyWindowStatement,
  deleteProviderIdsStatement,
  deleteWindowStatement,
  expiredArchiveStatement,
  firstMessageAtStatement,
  hotRunIdsStatement,
  jsonRows,
  type JsonRowsColumn,
  jsonRowsTable,
  lockArchivableRunStatement,
  NEVER_SQL,
  runWindowStatement,
  singleSendWindowStatement,
} from '@ums/platform';
import type { DatabaseQuery } from './database-query';

/**
 * The statements on the message tables that run per message, per batch, per page or per tick, as the
 * services issue them (the archiver's from libs/platform message-archive.sql.ts itself, over the
 * columns the database lists; the others restated here from their repositories, named in each), with
 * sample arguments. The query-plan bench (`npm run bench -- --only query-plans`, 10 million messages)
 * and its int-spec EXPLAIN each one and fail when a large table would be scanned.
 */
export interface HotQuery {
  readonly name: string;
  /** Where the services run it. */
  readonly source: string;
  readonly sql: (sample: PlanSample) => string;
  readonly params: (sample: PlanSample) => unknown[];
  /** Table names or aliases (as EXPLAIN names them) that must be read through an index, never scanned. */
  readonly guarded: readonly string[];
}

/** Sample arguments read from the filled tables (fillMessageTables). */
export interface PlanSample {
  /** A running run's id, its messages, some with provider ids, and a recipient of it. */
  readonly runId: bigint;
  readonly ids: readonly bigint[];
  readonly providerIds: readonly string[];
  readonly recipient: string;
  /** A run finished long ago (its messages copied to the archive too). */
  readonly oldRunId: bigint;
  readonly archivedIds: readonly bigint[];
  readonly idempotencyKey: string;
  readonly tenantId: string;
  /** Every column of `messages`, in order, as the archiver reads them from information_schema. */
  readonly messageColumns: readonly string[];
}

const DAY_US = 86_400_000_000;
const MESSAGE_STATES = ['PENDING', 'SENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED', 'UNKNOWN', 'SKIPPED'];
const FINISHED = ['COMPLETED', 'STOPPED', 'FAILED'];
const RUN_COLUMNS = `m.id, m.recipient, m.state, m.attempts,
  (SELECT p.provider_message_id FROM message_provider_ids p WHERE p.message_id = m.id) AS provider_message_id,
  m.reason, m.error_code, m.error_text, NULLIF(m.sent_at, ${NEVER_SQL}) AS sent_at, m.updated_at`;
const ARCHIVED_RUN_COLUMNS = RUN_COLUMNS.replace('message_provider_ids p', 'message_provider_ids_archive p');
const STATUS_COLUMNS: readonly JsonRowsColumn[] = [
  { name: 'id', type: 'BIGINT UNSIGNED' },
  { name: 'delivered_at', type: 'DATETIME(3)' },
];
const allStatesPage = (limit: number): HotQuery => ({
  name: `run page, every state (limit ${limit})`,
  source: 'campaign-scheduler messages.repository runPageStatement (listing; CSV export pages of 5,000)',
  sql: () => `SELECT ${RUN_COLUMNS}
          FROM (${MESSAGE_STATES.map(() => '(SELECT id FROM messages WHERE run_id = ? AND state = ? AND id > ? ORDER BY id LIMIT ?)').join(' UNION ALL ')}
                ORDER BY id LIMIT ?) AS page
          JOIN messages m ON m.id = page.id
         WHERE m.tenant_id = ? ORDER BY m.id`,
  params: (s) => [...MESSAGE_STATES.flatMap((state) => [s.runId, state, 0n, limit]), limit, s.tenantId],
  guarded: ['m', 'messages'],
});
const archivedPage = (limit: number): HotQuery => ({
  name: `run page, archived part (limit ${limit})`,
  source: 'campaign-scheduler messages.repository archivedRunPageStatement',
  sql: () => `SELECT ${ARCHIVED_RUN_COLUMNS} FROM messages_archive m FORCE INDEX (idx_messages_archive_run)
         WHERE m.run_id = ? AND m.id > ? AND m.tenant_id = ? ORDER BY m.id LIMIT ?`,
  params: (s) => [s.oldRunId, 0n, s.tenantId, limit],
  guarded: ['m', 'p'],
});

export const HOT_QUERIES: readonly HotQuery[] = [
  {
    name: 'claim by id list',
    source: 'notification-sender message-claims.repository claim',
    sql: () => `SELECT m.id, m.run_id, m.recipient, m.attempts, (SELECT r.state FROM runs r WHERE r.id = m.run_id) AS run_state,
                 EXISTS (SELECT 1 FROM opt_outs o WHERE o.tenant_id = m.tenant_id AND o.channel = m.channel
                          AND o.address = m.recipient) AS opted_out
            FROM messages m FORCE INDEX (PRIMARY) WHERE m.id IN (?) AND m.state = 'PENDING'`,
    params: (s) => [s.ids],
    guarded: ['m', 'r', 'o'],
  },
  {
    name: 'claim refresh by id list',
    source: 'notification-sender message-claims.repository refresh',
    sql: () => `UPDATE messages FORCE INDEX (PRIMARY) SET claimed_at = UTC_TIMESTAMP(3)
           WHERE id IN (?) AND claim_token = ? AND state = 'SENDING'`,
    params: (s) => [s.ids, 'token'],
    guarded: ['messages'],
  },
  {
    name: 'claim expiry sweep',
    source: 'notification-sender message-claims.repository expireClaims',
    sql: () => `SELECT id, run_id FROM messages FORCE INDEX (idx_messages_state_claimed)
           WHERE state = 'SENDING' AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
           ORDER BY claimed_at LIMIT ?`,
    params: () => [120_000_000, 500],
    guarded: ['messages'],
  },
  {
    name: 'status lock by id list',
    source: 'notification-sender status-updates.repository lockRows',
    sql: () => `SELECT m.id, m.state, (SELECT p.provider_message_id FROM message_provider_ids p WHERE p.message_id = m.id)
            FROM messages m FORCE INDEX (PRIMARY) WHERE m.id IN (?) ORDER BY m.id`,
    params: (s) => [s.ids],
    guarded: ['m', 'p'],
  },
  {
    name: 'status update by id list',
    source: 'notification-sender status-updates.repository updateRows',
    sql: () => `UPDATE messages m FORCE INDEX (PRIMARY) JOIN ${jsonRowsTable(STATUS_COLUMNS, 'v')} ON m.id = v.id
             SET m.state = 'DELIVERED', m.delivered_at = v.delivered_at, m.updated_at = UTC_TIMESTAMP(3)`,
    params: (s) => [
      jsonRows(
        STATUS_COLUMNS,
        s.ids.map((id) => ({ id: String(id), delivered_at: '2030-01-01 00:00:00.000' })),
      ),
    ],
    guarded: ['m'],
  },
  {
    name: 'provider id lookup',
    source: 'notification-sender status-updates.repository lockRows (callbacks naming the provider id only)',
    sql: () => 'SELECT message_id FROM message_provider_ids WHERE provider_message_id IN (?)',
    params: (s) => [s.providerIds],
    guarded: ['message_provider_ids'],
  },
  {
    name: 'late callback: archived provider id lookup',
    source: 'notification-sender archived-messages.repository archivedOf',
    sql: () => `SELECT m.id, m.credential_id, p.provider_message_id
            FROM message_provider_ids_archive p JOIN messages_archive m ON m.id = p.message_id
           WHERE p.provider_message_id IN (?)`,
    params: (s) => [s.providerIds],
    guarded: ['m', 'p'],
  },
  {
    name: 'late callback: archived id lookup',
    source: 'notification-sender archived-messages.repository archivedOf',
    sql: () => 'SELECT m.id, m.credential_id FROM messages_archive m WHERE m.id IN (?)',
    params: (s) => [s.archivedIds],
    guarded: ['m'],
  },
  allStatesPage(101),
  allStatesPage(5_000),
  {
    name: 'run page, one state',
    source: 'campaign-scheduler messages.repository runPageStatement',
    sql: () => `SELECT ${RUN_COLUMNS} FROM messages m
           WHERE m.run_id = ? AND m.state = ? AND m.id > ? AND m.tenant_id = ? ORDER BY m.id LIMIT ?`,
    params: (s) => [s.runId, 'FAILED', 0n, s.tenantId, 101],
    guarded: ['m', 'p'],
  },
  {
    name: 'run page, one recipient',
    source: 'campaign-scheduler messages.repository runPageStatement',
    sql: () => `SELECT ${RUN_COLUMNS} FROM messages m
           WHERE m.run_id = ? AND m.recipient = ? AND m.id > ? AND m.tenant_id = ? ORDER BY m.id LIMIT ?`,
    params: (s) => [s.runId, s.recipient, 0n, s.tenantId, 101],
    guarded: ['m', 'p'],
  },
  archivedPage(101),
  archivedPage(5_000),
  {
    name: 'message by id',
    source: 'campaign-scheduler messages.repository findById',
    sql: () => `SELECT ${RUN_COLUMNS} FROM messages m WHERE m.id = ? AND m.tenant_id = ?`,
    params: (s) => [s.ids[0], s.tenantId],
    guarded: ['m', 'p'],
  },
  {
    name: 'message by id, archived',
    source: 'campaign-scheduler messages.repository findById',
    sql: () => `SELECT ${ARCHIVED_RUN_COLUMNS} FROM messages_archive m WHERE m.id = ? AND m.tenant_id = ?`,
    params: (s) => [s.archivedIds[0], s.tenantId],
    guarded: ['m', 'p'],
  },
  {
    name: 'single send by idempotency key',
    source: 'campaign-scheduler messages.repository findByIdempotencyKey, send-requests.repository',
    sql: () => 'SELECT m.id, m.state FROM messages m WHERE m.tenant_id = ? AND m.idempotency_key = ?',
    params: (s) => [s.tenantId, s.idempotencyKey],
    guarded: ['m'],
  },
  {
    name: 'single send by idempotency key, archived',
    source: 'campaign-scheduler messages.repository findByIdempotencyKey',
    sql: () => `SELECT m.id FROM messages_archive m WHERE m.tenant_id = ? AND m.idempotency_key = ?
           ORDER BY m.id DESC LIMIT 1`,
    params: (s) => [s.tenantId, s.idempotencyKey],
    guarded: ['m'],
  },
  {
    name: 'run timeline stage counts',
    source: 'campaign-scheduler run-timeline.repository STAGE_COUNTS_SQL',
    sql: () => `SELECT t.stage, COUNT(*) AS n
            FROM (SELECT s.stage, CASE s.stage WHEN 0 THEN m.sent_at ELSE m.delivered_at END AS at
                    FROM messages m FORCE INDEX (idx_messages_run_state)
                    STRAIGHT_JOIN (SELECT 0 AS stage UNION ALL SELECT 1) s
                   WHERE m.run_id = ? AND (m.sent_at >= ? OR m.delivered_at >= ?)) t
           WHERE t.at >= ? GROUP BY t.stage`,
    params: (s) => [s.runId, '2020-01-01', '2020-01-01', '2020-01-01'],
    guarded: ['m'],
  },
  {
    name: 'run completion check',
    source: 'campaign-scheduler sweeper.repository completeFinishedRuns',
    sql: () => `SELECT r.id FROM runs r WHERE r.state = 'RUNNING' AND r.expanded_at IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.run_id = r.id AND m.state IN ('PENDING', 'SENDING'))
          LIMIT 100`,
    params: () => [],
    guarded: ['m'],
  },
  {
    name: 'run counters read',
    source: 'campaign-scheduler runs.repository find',
    sql: () => 'SELECT r.total, r.pending, r.sent, r.delivered, r.failed FROM runs r WHERE r.id = ?',
    params: (s) => [s.runId],
    guarded: ['r'],
  },
  {
    name: 'retry-failed reset',
    source: 'campaign-scheduler runs.repository resetMessages',
    sql: () => `UPDATE messages SET state = 'PENDING', updated_at = UTC_TIMESTAMP(3)
           WHERE run_id = ? AND state = ? AND tenant_id = ?`,
    params: (s) => [s.runId, 'FAILED', s.tenantId],
    guarded: ['messages'],
  },
  {
    name: 'retry-failed archived check',
    source: 'campaign-scheduler runs.repository resetMessages',
    sql: () => 'SELECT id FROM messages_archive WHERE run_id = ? LIMIT 1',
    params: (s) => [s.runId],
    guarded: ['messages_archive'],
  },
  {
    name: 'expander pending contact range',
    source: 'batch-expander expansion.repository pendingInContactRange',
    sql: () => `SELECT id, contact_id FROM messages
           WHERE run_id = ? AND contact_id > ? AND contact_id <= ? AND state = 'PENDING'`,
    params: (s) => [s.runId, 0n, 1000n],
    guarded: ['messages'],
  },
  {
    name: 'due-run scheduling',
    source: 'campaign-scheduler scheduling repository lockDueRuns',
    sql: () => `SELECT id, campaign_id, lease_epoch FROM runs
           WHERE state = 'PENDING' AND fire_at <= UTC_TIMESTAMP(3)
             AND campaign_id IN (SELECT id FROM campaigns WHERE state = 'ACTIVE')
           ORDER BY fire_at, id LIMIT ?`,
    params: () => [100],
    guarded: [],
  },
  ...archiverQueries(),
];

/** The archiver's statements, as it issues them (libs/platform message-archive.sql.ts). */
function archiverQueries(): HotQuery[] {
  const source = 'campaign-scheduler message-archive.repository';
  const q = (
    name: string,
    statement: (s: PlanSample) => { sql: string; params: unknown[] },
    guarded: string[],
  ) => ({
    name: `archiver: ${name}`,
    source,
    sql: (s: PlanSample) => statement(s).sql,
    params: (s: PlanSample) => statement(s).params,
    guarded,
  });
  return [
    q('hot run ids', () => hotRunIdsStatement(0n, 500), ['messages']),
    q(
      'archivable runs',
      (s) => archivableRunsStatement([s.oldRunId, s.runId], FINISHED, (30 * DAY_US) / 1000),
      ['runs'],
    ),
    q('lock run', (s) => lockArchivableRunStatement(s.oldRunId, FINISHED, (30 * DAY_US) / 1000), ['runs']),
    q('run window', (s) => runWindowStatement(s.oldRunId, 'DELIVERED', 0n, 5_000), ['messages']),
    q(
      'single-send window',
      (s) => singleSendWindowStatement('DELIVERED', 0n, s.ids[0] ?? 0n, (30 * DAY_US) / 1000, 5_000),
      ['messages'],
    ),
    q('first message at', (s) => firstMessageAtStatement(s.ids[0] ?? 0n), ['messages']),
    q('copy window', (s) => copyWindowStatement(s.messageColumns, s.ids), ['messages']),
    q('copy provider ids', (s) => copyProviderIdsStatement(s.ids), ['message_provider_ids']),
    q('delete provider ids', (s) => deleteProviderIdsStatement(s.ids), ['message_provider_ids']),
    q('delete window', (s) => deleteWindowStatement(s.ids), ['messages']),
    q('archive retention', () => expiredArchiveStatement((365 * DAY_US) / 1000, 5_000), ['messages_archive']),
  ];
}

/** One row of a plan, as checked and printed. */
export interface PlanRow {
  readonly query: string;
  readonly table: string;
  readonly type: string;
  readonly key: string | null;
  readonly rows: number;
  readonly extra: string;
  /** A guarded table read whole (type ALL) or through a whole index (type index). */
  readonly scan: boolean;
}

interface ExplainRow {
  readonly table: string | null;
  readonly type: string | null;
  readonly key: string | null;
  readonly rows: string | number | null;
  readonly Extra?: string | null;
}

/** EXPLAIN of every hot query with the sample's arguments; nothing is executed. */
export async function explainHotQueries(query: DatabaseQuery, sample: PlanSample): Promise<PlanRow[]> {
  const plans: PlanRow[] = [];
  for (const hot of HOT_QUERIES) {
    const rows = (await query(`EXPLAIN ${hot.sql(sample)}`, hot.params(sample))) as ExplainRow[];
    for (const row of rows) {
      const table = row.table ?? '';
      const type = row.type ?? '';
      plans.push({
        query: hot.name,
        table,
        type,
        key: row.key,
        rows: Number(row.rows ?? 0),
        extra: row.Extra ?? '',
        scan: hot.guarded.includes(table) && (type === 'ALL' || type === 'index'),
      });
    }
  }
  return plans;
}

/** A plan as one line: query, table, type, key, estimated rows. */
export function describePlanRow(row: PlanRow): string {
  return `${row.scan ? 'SCAN ' : ''}${row.query} | ${row.table} | ${row.type} | ${row.key ?? '-'} | ${row.rows}`;
}
