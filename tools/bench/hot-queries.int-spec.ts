import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { describePlanRow, explainHotQueries, HOT_QUERIES, type PlanRow } from './hot-queries';
import { fillMessageTables } from './message-tables-fill';

jest.setTimeout(300_000);

/**
 * The query-plan bench's checks on a small population (200,000 messages, 20 runs, analyzed): every hot
 * statement on the message tables reads them through an index. The same checks at 10 million messages:
 * `npm run bench -- --only query-plans` (docs/benchmarks.md).
 */
describe('hot query plans (real MariaDB, 200,000 messages)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let plans: PlanRow[];

  beforeAll(async () => {
    db = await createTestDatabase('hot_query_plans');
    ds = createDataSource({ ...db.admin, poolSize: 1 });
    await ds.initialize();
    await runPendingMigrations(ds);
    const query = (sql: string, params?: unknown[]) => ds.query(sql, params) as Promise<unknown>;
    const sample = await fillMessageTables(query, { messages: 200_000, runs: 20, archivedRuns: 2 });
    expect(sample.ids.length).toBe(100);
    expect(sample.providerIds.length).toBeGreaterThan(0);
    expect(sample.archivedIds.length).toBe(100);
    plans = await explainHotQueries(query, sample);
    if (process.env.UMS_PRINT_PLANS === '1')
      process.stdout.write(`${plans.map(describePlanRow).join('\n')}\n`);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('explains every hot query', () => {
    expect([...new Set(plans.map((row) => row.query))]).toEqual(HOT_QUERIES.map((hot) => hot.name));
  });

  it('scans no message table: every guarded table is read through an index', () => {
    expect(plans.filter((row) => row.scan).map(describePlanRow)).toEqual([]);
  });

  it('reads the archiver windows and the archived pages through the intended indexes', () => {
    const keyOf = (query: string, table: string) =>
      plans.find((row) => row.query === query && row.table === table)?.key;
    expect(keyOf('archiver: run window', 'messages')).toBe('idx_messages_run_state');
    expect(keyOf('archiver: single-send window', 'messages')).toBe('idx_messages_run_state');
    // A loose index scan on a run_id-first index: one dive per run kept hot, whatever the run sizes.
    const hotRuns = plans.find((row) => row.query === 'archiver: hot run ids');
    expect({ type: hotRuns?.type, extra: hotRuns?.extra }).toEqual({
      type: 'range',
      extra: expect.stringContaining('Using index for group-by'),
    });
    expect(keyOf('run page, archived part (limit 5000)', 'm')).toBe('idx_messages_archive_run');
    expect(keyOf('late callback: archived provider id lookup', 'p')).toBe(
      'idx_message_provider_ids_archive_provider',
    );
  });
});
