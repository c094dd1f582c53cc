import { createDataSource, loadConfig, MetricsRegistry, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { DeadLetterMaintenanceService } from './dead-letter-maintenance.service';
import { DeadLettersConfig } from './dead-letters.config';
import { DeadLettersMetrics } from './dead-letters.metrics';
import { type DeadLetterEntry, DeadLettersRepository } from './dead-letters.repository';

const SEND_REQUESTS = 'ums.campaign.send-requests.v1';
const BATCHES = 'ums.send.batches.v1';

describe('dead-letter maintenance (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repo: DeadLettersRepository;
  let offset = 0;

  beforeAll(async () => {
    db = await createTestDatabase('dead_letter_maintenance');
    ds = createDataSource({ ...db.settings, poolSize: 4 });
    await ds.initialize();
    await runPendingMigrations(ds);
    repo = new DeadLettersRepository(ds);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  beforeEach(async () => {
    await ds.query('DELETE FROM dead_letters');
  });

  function maintenance(env: Record<string, string>): {
    service: DeadLetterMaintenanceService;
    registry: MetricsRegistry;
  } {
    const registry = new MetricsRegistry('test');
    const service = new DeadLetterMaintenanceService(
      repo,
      loadConfig(DeadLettersConfig, env),
      new DeadLettersMetrics(registry),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
    return { service, registry };
  }

  /** `n` entries of one topic and code; `replayedDaysAgo` undefined: never replayed. Returns their ids. */
  async function entries(
    n: number,
    sourceTopic: string,
    errorCode: string,
    replayedDaysAgo?: number,
  ): Promise<string[]> {
    const letters: DeadLetterEntry[] = Array.from({ length: n }, (_, i) => ({
      // Entries of several tenants and of none: maintenance covers every one of them.
      tenantId: i % 3 === 2 ? null : `tenant-${i % 3}`,
      sourceTopic,
      sourcePartition: 0,
      sourceOffset: String(offset++),
      consumerGroup: 'some-group',
      key: 'k',
      value: '{}',
      valueEncoding: 'utf8',
      headers: {},
      errorCode,
      reason: 'test',
      attempts: 1,
      failedAt: '2026-11-26T01:02:03.456Z',
    }));
    for (let i = 0; i < letters.length; i += 1_000) await repo.insertMany(letters.slice(i, i + 1_000));
    const rows = (await ds.query('SELECT id FROM dead_letters WHERE source_offset IN (?)', [
      letters.map((l) => l.sourceOffset),
    ])) as { id: string | number }[];
    const ids = rows.map((r) => String(r.id));
    if (replayedDaysAgo !== undefined) {
      await repo.markReplayed(null, ids);
      await ds.query(
        'UPDATE dead_letters SET replayed_at = UTC_TIMESTAMP(3) - INTERVAL ? SECOND WHERE id IN (?)',
        [replayedDaysAgo * 86_400, ids],
      );
    }
    return ids;
  }

  async function remaining(): Promise<Record<string, number>> {
    const rows = (await ds.query(
      `SELECT source_topic, error_code, replayed_at IS NULL AS open, COUNT(*) AS n FROM dead_letters
        GROUP BY source_topic, error_code, open ORDER BY source_topic, error_code, open`,
    )) as { source_topic: string; error_code: string; open: number | string; n: number | string }[];
    return Object.fromEntries(
      rows.map((r) => [
        `${r.source_topic} ${r.error_code} ${Number(r.open) === 1 ? 'open' : 'replayed'}`,
        Number(r.n),
      ]),
    );
  }

  async function metricLines(registry: MetricsRegistry, name: string): Promise<string[]> {
    const text = await registry.getSingleMetricAsString(name);
    // Sorted: label pairs come out in the order they were set.
    return text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .sort();
  }

  it('deletes entries replayed longer ago than the retention, window by window, and keeps every open one however old', async () => {
    await entries(2_345, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND', 40); // past 30 days: more than two windows
    await entries(3, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND', 5); // replayed recently
    await entries(4, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND'); // never replayed
    const oldOpen = await entries(2, BATCHES, 'INVALID_JSON');
    // Open for a year: still nobody's decision, so still kept.
    await ds.query(
      'UPDATE dead_letters SET created_at = UTC_TIMESTAMP(3) - INTERVAL 365 DAY WHERE id IN (?)',
      [oldOpen],
    );
    const { service, registry } = maintenance({});

    expect(await service.prune()).toBe(2_345);
    expect(await remaining()).toEqual({
      [`${SEND_REQUESTS} CREDENTIAL_NOT_FOUND open`]: 4,
      [`${SEND_REQUESTS} CREDENTIAL_NOT_FOUND replayed`]: 3,
      [`${BATCHES} INVALID_JSON open`]: 2,
    });
    expect(await metricLines(registry, 'ums_dead_letters_pruned_total')).toEqual([
      'ums_dead_letters_pruned_total{service="test"} 2345',
    ]);
    // Nothing left past the retention: a pass deletes nothing.
    expect(await service.prune()).toBe(0);
  });

  it('keeps replayed entries when the retention is 0', async () => {
    await entries(5, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND', 400);
    const { service } = maintenance({ DEAD_LETTER_REPLAYED_RETENTION_MS: '0' });
    expect(await service.prune()).toBe(0);
    expect(await remaining()).toEqual({ [`${SEND_REQUESTS} CREDENTIAL_NOT_FOUND replayed`]: 5 });
  });

  it('counts open entries by source topic and error code, and drops a pair once nothing of it is open', async () => {
    await entries(7, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND');
    await entries(1, SEND_REQUESTS, 'SCHEMA_VIOLATION', 1); // replayed: not open
    const garbage = await entries(2, BATCHES, 'INVALID_JSON');
    const { service, registry } = maintenance({});

    await service.tick();
    expect(await metricLines(registry, 'ums_dead_letters_open')).toEqual([
      `ums_dead_letters_open{source_topic="${SEND_REQUESTS}",error_code="CREDENTIAL_NOT_FOUND",service="test"} 7`,
      `ums_dead_letters_open{source_topic="${BATCHES}",error_code="INVALID_JSON",service="test"} 2`,
    ]);

    await repo.markReplayed(null, garbage);
    await service.tick();
    expect(await metricLines(registry, 'ums_dead_letters_open')).toEqual([
      `ums_dead_letters_open{source_topic="${SEND_REQUESTS}",error_code="CREDENTIAL_NOT_FOUND",service="test"} 7`,
    ]);
  });

  it('reads the open count and the pruning range from the replayed index, not the whole table', async () => {
    // Thousands of rows, open and recently replayed: on a table of a few dozen rows the optimizer's choice
    // follows stale statistics (an earlier test's rows) and a full scan can win. Here neither query may.
    await entries(1_500, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND');
    await entries(1_500, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND', 0.05);
    await ds.query('ANALYZE TABLE dead_letters');
    // TRADITIONAL: MySQL 9.7 prints a tree by default (explain_format); MariaDB 10.11 and MySQL 8 take it too.
    const plan = (await ds.query(
      `EXPLAIN FORMAT=TRADITIONAL SELECT source_topic, error_code, COUNT(*) AS n FROM dead_letters
        WHERE replayed_at IS NULL GROUP BY source_topic, error_code`,
    )) as { key: string | null; Extra: string | null }[];
    expect(plan[0]).toMatchObject({
      key: 'idx_dead_letters_replayed',
      Extra: expect.stringContaining('Using index'),
    });
    const prune = (await ds.query(
      `EXPLAIN FORMAT=TRADITIONAL DELETE FROM dead_letters WHERE replayed_at < UTC_TIMESTAMP(3) - INTERVAL 1 DAY
        ORDER BY replayed_at LIMIT 1000`,
    )) as { key: string | null }[];
    expect(prune[0]).toMatchObject({ key: 'idx_dead_letters_replayed' });
  });

  it('a failing part is reported and the other still runs', async () => {
    await entries(3, SEND_REQUESTS, 'CREDENTIAL_NOT_FOUND', 40);
    await entries(1, BATCHES, 'INVALID_JSON');
    const { service, registry } = maintenance({});
    const countOpen = jest.spyOn(repo, 'countOpen').mockRejectedValueOnce(new Error('database away'));
    await expect(service.tick()).rejects.toThrow('database away');
    countOpen.mockRestore();
    // The prune ran although the count failed.
    expect(await remaining()).toEqual({ [`${BATCHES} INVALID_JSON open`]: 1 });
    expect(await metricLines(registry, 'ums_dead_letters_pruned_total')).toEqual([
      'ums_dead_letters_pruned_total{service="test"} 3',
    ]);
  });
});
