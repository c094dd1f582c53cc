import type { DatabaseQuery } from './database-query';
import type { PlanSample } from './hot-queries';

export interface FillOptions {
  /** Messages in `messages` (the last 5% single sends, the rest spread over the runs). */
  readonly messages: number;
  /** Runs: the first 80% finished 60 days ago, the next 10% two days ago, the rest RUNNING. */
  readonly runs: number;
  /** Runs finished long ago whose messages are also copied to `messages_archive` (its statistics). */
  readonly archivedRuns: number;
  readonly onProgress?: (filled: number) => void;
}

const TENANT = 'bench';
/** Rows per INSERT ... SELECT: one pass over the 100,000-row sequence table. */
const CHUNK = 100_000;

/**
 * Fills a migrated scratch database with a realistic message population quickly: multi-row
 * INSERT ... SELECT over a sequence table (cross joins of digits, portable to MariaDB and MySQL), about
 * 100,000 rows a statement. States are mixed (mostly delivered and read, some failed, unknown, skipped;
 * PENDING and SENDING only in running runs), a quarter of the sent messages named by the provider, then
 * ANALYZE TABLE so the plans see real statistics. Returns sample arguments for the hot queries.
 */
export async function fillMessageTables(query: DatabaseQuery, options: FillOptions): Promise<PlanSample> {
  await seedRuns(query, options.runs);
  await query('CREATE TABLE bench_digits (d INT NOT NULL PRIMARY KEY) ENGINE=InnoDB');
  await query('INSERT INTO bench_digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)');
  await query('CREATE TABLE bench_seq (n INT NOT NULL PRIMARY KEY) ENGINE=InnoDB');
  await query(
    `INSERT INTO bench_seq SELECT a.d + 10 * b.d + 100 * c.d + 1000 * d.d + 10000 * e.d
       FROM bench_digits a, bench_digits b, bench_digits c, bench_digits d, bench_digits e`,
  );
  const singles = Math.floor(options.messages / 20);
  const perRun = Math.floor((options.messages - singles) / options.runs);
  const running = Math.ceil(options.runs * 0.9);
  for (let start = 0; start < options.messages; start += CHUNK) {
    await insertChunk(query, {
      start,
      size: Math.min(CHUNK, options.messages - start),
      perRun,
      running,
      runs: options.runs,
    });
    options.onProgress?.(Math.min(start + CHUNK, options.messages));
  }
  await query(
    `INSERT INTO message_provider_ids (message_id, provider_message_id)
     SELECT id, CONCAT('wamid.HBgLNDkxNTExMjM0NTY3FQIAERgSRDBGQjM0NDY3', id) FROM messages
      WHERE state IN ('SENT', 'DELIVERED', 'READ') AND id % 4 = 0`,
  );
  await copyToArchive(query, options.archivedRuns);
  await query('DROP TABLE bench_seq');
  await query('DROP TABLE bench_digits');
  for (const table of [
    'runs',
    'messages',
    'message_provider_ids',
    'messages_archive',
    'message_provider_ids_archive',
  ]) {
    await query(`ANALYZE TABLE ${table}`);
  }
  return sampleOf(query, running + 1);
}

async function seedRuns(query: DatabaseQuery, runs: number): Promise<void> {
  await query(
    `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
     VALUES ('cred-bench', ?, 'bench', 'simulator', 'whatsapp', '{}', 1000, 1)`,
    [TENANT],
  );
  await query(
    `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
     VALUES ('cmp-bench', ?, 'bench', 'whatsapp', 'cred-bench', '{"body":"hi"}', 'now', 'ACTIVE')`,
    [TENANT],
  );
  const rows = Array.from({ length: runs }, (_, i) => i + 1);
  const finishedOld = Math.floor(runs * 0.8);
  const finishedNew = Math.floor(runs * 0.9);
  await query(
    `INSERT INTO runs (id, campaign_id, fire_at, state, expanded_at, finished_at)
     VALUES ${rows
       .map(
         (id) =>
           `(${id}, 'cmp-bench', UTC_TIMESTAMP(3) - INTERVAL ${runs - id + 1} HOUR, '${id <= finishedNew ? 'COMPLETED' : 'RUNNING'}',
             UTC_TIMESTAMP(3), ${id <= finishedOld ? 'UTC_TIMESTAMP(3) - INTERVAL 60 DAY' : id <= finishedNew ? 'UTC_TIMESTAMP(3) - INTERVAL 2 DAY' : 'NULL'})`,
       )
       .join(', ')}`,
  );
}

/** Rows start..start+size-1: message n of run 1 + n / perRun, single sends past the runs' share. */
async function insertChunk(
  query: DatabaseQuery,
  chunk: { start: number; size: number; perRun: number; running: number; runs: number },
): Promise<void> {
  const never = "'1970-01-01 00:00:00.000'";
  const sent = "g.state IN ('SENT', 'DELIVERED', 'READ')";
  await query(
    `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
       state, claim_token, claimed_at, attempts, idempotency_key, sent_at, delivered_at, created_at, updated_at)
     SELECT IF(g.is_run, g.run, NULL), 'cmp-bench', '${TENANT}', IF(g.is_run, g.n + 1, NULL), 'whatsapp',
            'cred-bench', CONCAT('+4915', LPAD(g.n, 9, '0')), IF(g.is_run, 'bulk', 'priority'), g.state,
            IF(g.state = 'SENDING', '3f2b8c1e-7a4d-4e5f-9b6a-0c1d2e3f4a5b', ''),
            IF(g.state = 'SENDING', UTC_TIMESTAMP(3), ${never}),
            IF(g.state = 'PENDING', 0, 1), IF(g.is_run, NULL, CONCAT('req-', g.n)),
            IF(${sent}, UTC_TIMESTAMP(3) - INTERVAL 1 DAY, ${never}),
            IF(g.state IN ('DELIVERED', 'READ'), UTC_TIMESTAMP(3) - INTERVAL 1 DAY, ${never}),
            g.created_at, g.created_at
       FROM (SELECT b.n, b.run, b.run <= ? AS is_run,
                    UTC_TIMESTAMP(3) - INTERVAL (? - LEAST(b.run, ?)) HOUR AS created_at,
                    CASE WHEN b.run <= ? AND b.run > ? AND b.n % 10 < 4 THEN 'PENDING'
                         WHEN b.run <= ? AND b.run > ? AND b.n % 10 = 4 THEN 'SENDING'
                         WHEN b.n % 100 < 55 THEN 'DELIVERED' WHEN b.n % 100 < 75 THEN 'READ'
                         WHEN b.n % 100 < 85 THEN 'SENT' WHEN b.n % 100 < 92 THEN 'FAILED'
                         WHEN b.n % 100 < 96 THEN 'UNKNOWN' ELSE 'SKIPPED' END AS state
               FROM (SELECT s.n + ? AS n, 1 + (s.n + ?) DIV ? AS run FROM bench_seq s WHERE s.n < ?) b) g
      ORDER BY g.n`,
    [
      chunk.runs,
      chunk.runs,
      chunk.runs,
      chunk.runs,
      chunk.running,
      chunk.runs,
      chunk.running,
      chunk.start,
      chunk.start,
      chunk.perRun,
      chunk.size,
    ],
  );
}

/** Copies the first runs' messages and provider ids to the archive (as if archived, kept hot as well). */
async function copyToArchive(query: DatabaseQuery, runs: number): Promise<void> {
  if (runs === 0) return;
  await query(
    `INSERT INTO messages_archive (id, run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient,
       lane, state, claim_token, claimed_at, attempts, idempotency_key, sent_at, delivered_at, created_at, updated_at)
     SELECT id, run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state,
            claim_token, claimed_at, attempts, idempotency_key, sent_at, delivered_at, created_at, updated_at
       FROM messages WHERE run_id <= ?`,
    [runs],
  );
  await query(
    `INSERT INTO message_provider_ids_archive (message_id, provider_message_id)
     SELECT p.message_id, p.provider_message_id FROM message_provider_ids p
       JOIN messages_archive a ON a.id = p.message_id`,
  );
}

async function sampleOf(query: DatabaseQuery, runId: number): Promise<PlanSample> {
  const ids = (await query('SELECT id FROM messages WHERE run_id = ? AND state = ? ORDER BY id LIMIT 100', [
    runId,
    'PENDING',
  ])) as { id: string }[];
  const named = (await query(
    `SELECT p.provider_message_id AS pid FROM messages m JOIN message_provider_ids p ON p.message_id = m.id
      WHERE m.run_id = ? LIMIT 100`,
    [runId],
  )) as { pid: string }[];
  const [recipient] = (await query('SELECT recipient FROM messages WHERE run_id = ? LIMIT 1', [runId])) as {
    recipient: string;
  }[];
  const archived = (await query('SELECT id, run_id FROM messages_archive ORDER BY id LIMIT 100')) as {
    id: string;
    run_id: string;
  }[];
  const [single] = (await query(
    'SELECT idempotency_key AS k FROM messages WHERE run_id IS NULL LIMIT 1',
  )) as {
    k: string;
  }[];
  const columns = (await query(
    `SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'messages' ORDER BY ORDINAL_POSITION`,
  )) as { name: string }[];
  return {
    runId: BigInt(runId),
    ids: ids.map((row) => BigInt(row.id)),
    providerIds: named.map((row) => row.pid),
    recipient: recipient?.recipient ?? '',
    oldRunId: BigInt(archived[0]?.run_id ?? 1),
    archivedIds: archived.map((row) => BigInt(row.id)),
    idempotencyKey: single?.k ?? '',
    tenantId: TENANT,
    messageColumns: columns.map((column) => column.name),
  };
}
