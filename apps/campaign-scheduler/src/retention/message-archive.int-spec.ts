import { MessageStatus, RunErrorCode, RunState } from '@ums/contracts';
import {
  createDataSource,
  loadConfig,
  MetricsRegistry,
  MysqlReadEndpoint,
  NEVER_SQL,
  runPendingMigrations,
} from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import { parse } from 'csv-parse/sync';
import { PinoLogger } from 'nestjs-pino';
import { text } from 'node:stream/consumers';
import type { DataSource } from 'typeorm';
import { MessagesRepository } from '../messages/messages.repository';
import { MessagesService } from '../messages/messages.service';
import { RunsRepository } from '../runs/runs.repository';
import { MessageArchiveMetrics } from './message-archive.metrics';
import { MessageArchiveRepository } from './message-archive.repository';
import { MessageArchiveService } from './message-archive.service';
import { MessageRetentionConfig } from './message-retention.config';

jest.setTimeout(120_000);

const DAY_S = 86_400;
const WINDOW = 500;
const STATES = [
  MessageStatus.Delivered,
  MessageStatus.Read,
  MessageStatus.Failed,
  MessageStatus.Sent,
  MessageStatus.Unknown,
  MessageStatus.Skipped,
];

/** A seeded run: its id, its state, how long ago it finished (null: not finished) and its message count. */
interface SeededRun {
  readonly id: number;
  readonly state: string;
  readonly finishedDaysAgo: number | null;
  readonly messages: number;
}

const RUNS: readonly SeededRun[] = [
  { id: 1, state: 'COMPLETED', finishedDaysAgo: 40, messages: 2_345 }, // several windows in several states
  { id: 2, state: 'STOPPED', finishedDaysAgo: 35, messages: 777 },
  { id: 3, state: 'FAILED', finishedDaysAgo: 31, messages: 1_234 }, // half archived by hand first
  { id: 4, state: 'COMPLETED', finishedDaysAgo: 2, messages: 500 }, // finished within the retention
  { id: 5, state: 'RUNNING', finishedDaysAgo: null, messages: 400 }, // not finished
  { id: 6, state: 'PAUSED', finishedDaysAgo: null, messages: 50 },
];
const OLD_RUN_IDS = [1, 2, 3];
const OLD_SETTLED_SINGLES = 300;
const OLD_IN_FLIGHT_SINGLES = 40;
const FRESH_SINGLES = 100;

describe('message archive (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let registry: MetricsRegistry;
  let repository: MessageArchiveRepository;
  let archiver: MessageArchiveService;
  let messages: MessagesService;
  let seeded: number;

  beforeAll(async () => {
    db = await createTestDatabase('message_archive');
    ds = createDataSource({ ...db.settings, poolSize: 4 });
    await ds.initialize();
    await runPendingMigrations(ds);
    registry = new MetricsRegistry('test');
    repository = new MessageArchiveRepository(ds);
    archiver = new MessageArchiveService(
      ds,
      repository,
      loadConfig(MessageRetentionConfig, {
        MESSAGE_ARCHIVE_WINDOW: String(WINDOW),
        MESSAGE_ARCHIVE_PAUSE_MS: '0',
        MESSAGE_ARCHIVE_MAX_WINDOWS: '1000',
      }),
      new MessageArchiveMetrics(registry),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
    messages = new MessagesService(new MessagesRepository(ds, new MysqlReadEndpoint(ds, false)));
    seeded = await seed();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** Campaign, runs (with counters) and messages; every other sent message named by the provider. */
  async function seed(): Promise<number> {
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-1', 't1', 'sim', 'simulator', 'sms', '{}', 100, 1)`,
    );
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
       VALUES ('camp-1', 't1', 'spring', 'sms', 'cred-1', '{"body":"hi"}', 'now', 'ACTIVE')`,
    );
    let total = 0;
    for (const run of RUNS) {
      await ds.query(
        `INSERT INTO runs (id, campaign_id, fire_at, state, total, delivered, failed, finished_at)
         VALUES (?, 'camp-1', UTC_TIMESTAMP(3) - INTERVAL ? DAY, ?, ?, ?, ?,
                 IF(? IS NULL, NULL, UTC_TIMESTAMP(3) - INTERVAL ? SECOND))`,
        [
          run.id,
          run.id,
          run.state,
          run.messages,
          run.messages - 7,
          7,
          run.finishedDaysAgo,
          (run.finishedDaysAgo ?? 0) * DAY_S,
        ],
      );
      await insertMessages(run.messages, (i) => ({
        runId: run.id,
        contactId: i + 1,
        state: stateOf(i),
        ageS: 45 * DAY_S,
      }));
      total += run.messages;
    }
    const single = (state: MessageStatus, ageS: number) => (i: number) => ({
      runId: null,
      contactId: null,
      state,
      ageS,
      key: `${state}-${ageS}-${i}`,
    });
    await insertMessages(OLD_SETTLED_SINGLES, (i) => single(stateOf(i), 40 * DAY_S)(i));
    await insertMessages(OLD_IN_FLIGHT_SINGLES, (i) =>
      single(i % 2 === 0 ? MessageStatus.Pending : MessageStatus.Sending, 40 * DAY_S)(i),
    );
    await insertMessages(FRESH_SINGLES, (i) => single(MessageStatus.Delivered, 3_600)(i));
    await ds.query(
      `INSERT INTO message_provider_ids (message_id, provider_message_id)
       SELECT id, CONCAT('prov-', id) FROM messages WHERE state IN ('SENT', 'DELIVERED', 'READ') AND id % 2 = 0`,
    );
    return total + OLD_SETTLED_SINGLES + OLD_IN_FLIGHT_SINGLES + FRESH_SINGLES;
  }

  function stateOf(i: number): MessageStatus {
    return STATES[i % STATES.length] as MessageStatus;
  }

  async function insertMessages(
    n: number,
    rowOf: (i: number) => {
      runId: number | null;
      contactId: number | null;
      state: MessageStatus;
      ageS: number;
      key?: string;
    },
  ): Promise<void> {
    for (let start = 0; start < n; start += 1_000) {
      const rows = Array.from({ length: Math.min(1_000, n - start) }, (_, i) => rowOf(start + i));
      await ds.query(
        `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
           state, idempotency_key, delivered_at, created_at, updated_at)
         VALUES ${rows
           .map(
             () =>
               `(?, 'camp-1', 't1', ?, 'sms', 'cred-1', ?, 'bulk', ?, ?, ${NEVER_SQL},
                 UTC_TIMESTAMP(3) - INTERVAL ? SECOND, UTC_TIMESTAMP(3) - INTERVAL ? SECOND)`,
           )
           .join(', ')}`,
        rows.flatMap((row, i) => [
          row.runId,
          row.contactId,
          `+1555${String(start + i).padStart(7, '0')}`,
          row.state,
          row.key ?? null,
          row.ageS,
          row.ageS,
        ]),
      );
    }
  }

  async function count(sql: string, params: unknown[] = []): Promise<number> {
    const [row] = (await ds.query(sql, params)) as { n: string | number }[];
    return Number(row?.n);
  }

  const hotOf = (runId: number) => count('SELECT COUNT(*) AS n FROM messages WHERE run_id = ?', [runId]);
  const archivedOf = (runId: number) =>
    count('SELECT COUNT(*) AS n FROM messages_archive WHERE run_id = ?', [runId]);

  async function counters(): Promise<unknown[]> {
    return ds.query('SELECT id, state, total, delivered, failed, finished_at FROM runs ORDER BY id');
  }

  async function exportedIds(runId: number): Promise<string[]> {
    const csv = await text(await messages.exportRunMessages('t1', 'camp-1', String(runId), {}));
    return (parse(csv, { columns: true }) as { id: string }[]).map((row) => row.id);
  }

  async function idsOfRun(runId: number): Promise<string[]> {
    const rows = (await ds.query(
      `SELECT id FROM messages WHERE run_id = ? UNION ALL SELECT id FROM messages_archive WHERE run_id = ?`,
      [runId, runId],
    )) as { id: string }[];
    return rows.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  }

  it('moves a window once: repeating it moves the next rows, and a row already archived is replaced', async () => {
    const columns = await repository.archiveColumns();
    const options = { retentionMs: 30 * DAY_S * 1000, window: WINDOW };
    const window = { runId: 3n, state: MessageStatus.Delivered, afterId: 0n };
    // A copy of a row left in the archive (as a restore would leave it) must not block or duplicate it.
    const [first] = (await ds.query(
      `SELECT id FROM messages WHERE run_id = 3 AND state = 'DELIVERED' ORDER BY id LIMIT 1`,
    )) as { id: string }[];
    await ds.query(
      `INSERT INTO messages_archive (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM messages WHERE id = ?`,
      [first?.id],
    );
    await ds.query(`UPDATE messages SET attempts = 9 WHERE id = ?`, [first?.id]);
    const once = await repository.archiveRunWindow(columns, window, options);
    const twice = await repository.archiveRunWindow(columns, window, options);
    const delivered = await count(
      `SELECT COUNT(*) AS n FROM messages_archive WHERE run_id = 3 AND state = 'DELIVERED'`,
    );
    expect(once.moved + twice.moved).toBe(delivered);
    expect((await hotOf(3)) + (await archivedOf(3))).toBe(1_234);
    expect(await count('SELECT COUNT(*) AS n FROM messages m JOIN messages_archive a ON a.id = m.id')).toBe(
      0,
    );
    // The hot row won over the stale copy.
    expect(await count('SELECT attempts AS n FROM messages_archive WHERE id = ?', [first?.id])).toBe(9);
    // Half archived, the export still yields every message of the run once, in id order.
    expect(await exportedIds(3)).toEqual(await idsOfRun(3));
  });

  it('moves exactly the old finished runs and settled single sends, losing and duplicating nothing', async () => {
    const before = await counters();
    const providerIds =
      (await count('SELECT COUNT(*) AS n FROM message_provider_ids')) +
      (await count('SELECT COUNT(*) AS n FROM message_provider_ids_archive'));
    const tick = await archiver.tick();
    expect(tick.ran).toBe(true);
    expect(tick.singleSends).toBe(OLD_SETTLED_SINGLES);
    for (const run of RUNS) {
      const old = OLD_RUN_IDS.includes(run.id);
      expect({ run: run.id, hot: await hotOf(run.id), archived: await archivedOf(run.id) }).toEqual({
        run: run.id,
        hot: old ? 0 : run.messages,
        archived: old ? run.messages : 0,
      });
    }
    expect(await count('SELECT COUNT(*) AS n FROM messages_archive WHERE run_id IS NULL')).toBe(
      OLD_SETTLED_SINGLES,
    );
    expect(
      await count(
        `SELECT COUNT(*) AS n FROM messages_archive WHERE run_id IS NULL AND state IN ('PENDING', 'SENDING')`,
      ),
    ).toBe(0);
    expect(await count('SELECT COUNT(*) AS n FROM messages WHERE run_id IS NULL')).toBe(
      OLD_IN_FLIGHT_SINGLES + FRESH_SINGLES,
    );
    expect(await count('SELECT COUNT(*) AS n FROM messages m JOIN messages_archive a ON a.id = m.id')).toBe(
      0,
    );
    const hot = await count('SELECT COUNT(*) AS n FROM messages');
    const archived = await count('SELECT COUNT(*) AS n FROM messages_archive');
    expect(hot + archived).toBe(seeded);
    // Provider ids moved with their messages: none lost, none left behind for an archived message.
    const hotIds = await count('SELECT COUNT(*) AS n FROM message_provider_ids');
    const archivedIds = await count('SELECT COUNT(*) AS n FROM message_provider_ids_archive');
    expect(hotIds + archivedIds).toBe(providerIds);
    expect(
      await count(
        'SELECT COUNT(*) AS n FROM message_provider_ids p LEFT JOIN messages m ON m.id = p.message_id WHERE m.id IS NULL',
      ),
    ).toBe(0);
    expect(await counters()).toEqual(before);
    const metric = await registry.getSingleMetricAsString('ums_messages_archived_total');
    expect(metric).toMatch(new RegExp(`origin="single"[^}]*} ${OLD_SETTLED_SINGLES}(?:\n|$)`));
    expect(metric).toMatch(new RegExp(`origin="run"[^}]*} ${tick.runMessages}(?:\n|$)`));
    // A second tick finds nothing left to move.
    expect(await archiver.tick()).toEqual({ ran: true, runMessages: 0, singleSends: 0, pruned: 0 });
  });

  it('finds archived messages by id and by idempotency key, marked archived, with their provider id', async () => {
    const [named] = (await ds.query(
      `SELECT a.id, p.provider_message_id FROM messages_archive a
         JOIN message_provider_ids_archive p ON p.message_id = a.id WHERE a.run_id = 1 ORDER BY a.id LIMIT 1`,
    )) as { id: string; provider_message_id: string }[];
    const archived = await messages.getMessage('t1', named?.id ?? '');
    expect(archived).toMatchObject({
      id: named?.id,
      runId: '1',
      archived: true,
      providerMessageId: named?.provider_message_id,
    });
    await expect(messages.getMessage('t2', named?.id ?? '')).rejects.toMatchObject({
      code: 'MESSAGE_NOT_FOUND',
    });
    const [hot] = (await ds.query('SELECT id FROM messages WHERE run_id = 4 LIMIT 1')) as { id: string }[];
    expect(await messages.getMessage('t1', hot?.id ?? '')).toMatchObject({ id: hot?.id, archived: false });
    const [single] = (await ds.query(
      'SELECT idempotency_key FROM messages_archive WHERE run_id IS NULL LIMIT 1',
    )) as { idempotency_key: string }[];
    expect(await messages.findByIdempotencyKey('t1', single?.idempotency_key ?? '')).toMatchObject({
      idempotencyKey: single?.idempotency_key,
      archived: true,
    });
  });

  it('exports and lists an archived run: every message once, in id order', async () => {
    const ids = await idsOfRun(1);
    expect(await exportedIds(1)).toEqual(ids);
    const listed: string[] = [];
    let after: string | undefined;
    do {
      const page = await messages.listRunMessages('t1', 'camp-1', '1', {
        limit: 1000,
        ...(after ? { after } : {}),
      });
      listed.push(...page.items.map((item) => item.id));
      after = page.nextAfter ?? undefined;
    } while (after !== undefined);
    expect(listed).toEqual(ids);
    const failed = await messages.listRunMessages('t1', 'camp-1', '1', {
      limit: 1000,
      state: [MessageStatus.Failed],
    });
    expect(failed.items.length).toBe(
      await count(`SELECT COUNT(*) AS n FROM messages_archive WHERE run_id = 1 AND state = 'FAILED'`),
    );
  });

  it('refuses retry-failed on an archived run', async () => {
    const runs = new RunsRepository(ds);
    await expect(
      ds.transaction((manager) =>
        runs.resetMessages(
          manager,
          { id: '1', campaignId: 'camp-1', tenantId: 't1', state: RunState.Completed, epoch: 0 },
          MessageStatus.Failed,
        ),
      ),
    ).rejects.toMatchObject({ code: RunErrorCode.Archived });
  });

  it('skips a tick while another replica holds the archive lock', async () => {
    const runner = ds.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SELECT GET_LOCK(CONCAT('ums.message_archive.', DATABASE()), 0)`);
      expect(await archiver.tick()).toEqual({ ran: false, runMessages: 0, singleSends: 0, pruned: 0 });
    } finally {
      await runner.query(`DO RELEASE_LOCK(CONCAT('ums.message_archive.', DATABASE()))`);
      await runner.release();
    }
  });

  it('deletes archived messages past MESSAGE_ARCHIVE_RETENTION_MS, with their provider ids', async () => {
    await ds.query(
      'UPDATE messages_archive SET archived_at = UTC_TIMESTAMP(3) - INTERVAL 400 DAY WHERE run_id = 2',
    );
    const pruner = new MessageArchiveService(
      ds,
      repository,
      loadConfig(MessageRetentionConfig, {
        MESSAGE_RETENTION_MS: '0',
        MESSAGE_ARCHIVE_RETENTION_MS: String(365 * DAY_S * 1000),
        MESSAGE_ARCHIVE_WINDOW: '100',
      }),
      new MessageArchiveMetrics(new MetricsRegistry('test')),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
    expect(await pruner.tick()).toEqual({ ran: true, runMessages: 0, singleSends: 0, pruned: 777 });
    expect(await archivedOf(2)).toBe(0);
    expect(await archivedOf(1)).toBe(2_345);
    expect(
      await count(
        'SELECT COUNT(*) AS n FROM message_provider_ids_archive p LEFT JOIN messages_archive a ON a.id = p.message_id WHERE a.id IS NULL',
      ),
    ).toBe(0);
  });
});
