import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { RunsRepository } from '../runs/runs.repository';
import { SchedulingRepository } from './scheduling.repository';

jest.setTimeout(60_000);

/** Due runs are taken by their campaign's priority first, then by fire time (real database). */
describe('due runs in priority order', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repository: SchedulingRepository;

  beforeAll(async () => {
    database = await createTestDatabase('ums_due_run_priority');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    repository = new SchedulingRepository(new RunsRepository(ds));
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-1', 't1', 'sms', 'simulator', 'sms', '{}', 100, 1)`,
    );
    // The low-priority run fired first: priority, not fire time, decides between them.
    for (const [id, priority, state, firedSecondsAgo] of [
      ['cmp_low', 1, 'ACTIVE', 60],
      ['cmp_high', 5, 'ACTIVE', 10],
      ['cmp_high_older', 5, 'ACTIVE', 30],
      ['cmp_paused', 10, 'PAUSED', 90],
    ] as const) {
      await ds.query(
        `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state, priority)
         VALUES (?, 't1', ?, 'sms', 'cred-1', '{"text":"Hi"}', 'now', ?, ?)`,
        [id, id, state, priority],
      );
      await ds.query(
        `INSERT INTO runs (campaign_id, fire_at, state)
         VALUES (?, UTC_TIMESTAMP(3) - INTERVAL ? SECOND, 'PENDING')`,
        [id, firedSecondsAgo],
      );
    }
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  /** The campaigns of the due runs one transaction takes (and rolls back), in the order taken. */
  async function taken(limit: number): Promise<string[]> {
    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    try {
      return (await repository.lockDueRuns(runner.manager, limit)).map((run) => run.campaignId);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it('takes the higher priority first, then the older fire time', async () => {
    expect(await taken(1)).toEqual(['cmp_high_older']);
    expect(await taken(10)).toEqual(['cmp_high_older', 'cmp_high', 'cmp_low']);
  });

  it('follows a changed priority at the next look', async () => {
    await ds.query("UPDATE campaigns SET priority = 9 WHERE id = 'cmp_low'");
    expect(await taken(10)).toEqual(['cmp_low', 'cmp_high_older', 'cmp_high']);
  });
});
