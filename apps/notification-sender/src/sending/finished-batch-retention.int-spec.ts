import { createDataSource, loadConfig, MetricsRegistry, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { FinishedBatchRetentionService } from './finished-batch-retention.service';
import { FINISHED_BATCHES_INBOX, MessageClaimsRepository } from './message-claims.repository';
import { SendingConfig } from './sending.config';
import { messageClaimsRepository } from './test/claims-repository';

const DAY_MS = 86_400_000;

describe('finished-batch inbox retention (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let registry: MetricsRegistry;
  let repo: MessageClaimsRepository;
  let retention: FinishedBatchRetentionService;

  beforeAll(async () => {
    db = await createTestDatabase('finished_batch_retention');
    ds = createDataSource({ ...db.settings, poolSize: 4 });
    await ds.initialize();
    await runPendingMigrations(ds);
    registry = new MetricsRegistry('test');
    repo = messageClaimsRepository(ds, registry);
    retention = new FinishedBatchRetentionService(
      repo,
      loadConfig(SendingConfig, { SENDER_FINISHED_BATCH_RETENTION_MS: String(8 * DAY_MS) }),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
      registry,
    );
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** `n` inbox rows of `consumer` for run `runId`, recorded `daysAgo`. */
  async function inboxRows(consumer: string, runId: string, n: number, daysAgo: number): Promise<void> {
    for (let start = 0; start < n; start += 1_000) {
      const count = Math.min(1_000, n - start);
      await ds.query(
        `INSERT INTO processed_events (consumer, event_id, processed_at)
         VALUES ${Array.from({ length: count }, () => '(?, ?, UTC_TIMESTAMP(3) - INTERVAL ? SECOND)').join(', ')}`,
        Array.from({ length: count }, (_, i) => [consumer, `${runId}:${start + i}`, daysAgo * 86_400]).flat(),
      );
    }
  }

  async function remaining(): Promise<Record<string, number>> {
    const rows = (await ds.query(
      `SELECT consumer, SUBSTRING_INDEX(event_id, ':', 1) AS run_id, COUNT(*) AS n
         FROM processed_events GROUP BY consumer, run_id ORDER BY consumer, run_id`,
    )) as { consumer: string; run_id: string; n: string }[];
    return Object.fromEntries(rows.map((r) => [`${r.consumer} ${r.run_id}`, Number(r.n)]));
  }

  async function prunedMetric(): Promise<number> {
    const metric = await registry.getSingleMetricAsString('ums_sender_finished_batches_pruned_total');
    return Number(/ (\d+)$/m.exec(metric)?.[1]);
  }

  it('deletes finished-batch rows past the retention, window by window, and nothing younger or of other consumers', async () => {
    await inboxRows(FINISHED_BATCHES_INBOX, '1', 2_345, 10); // past 8 days: more than two windows
    await inboxRows(FINISHED_BATCHES_INBOX, '2', 5, 1); // young
    await inboxRows('another-consumer', '3', 4, 30); // not this service's inbox
    // A batch finished now is recorded once, and its copy after the pass still counts once.
    await repo.finishBatch('4', 0);

    expect(await retention.prune()).toBe(2_345);
    expect(await remaining()).toEqual({
      [`${FINISHED_BATCHES_INBOX} 2`]: 5,
      [`${FINISHED_BATCHES_INBOX} 4`]: 1,
      'another-consumer 3': 4,
    });
    expect(await prunedMetric()).toBe(2_345);

    await repo.finishBatch('4', 0);
    const deltas = (await ds.query(
      `SELECT COALESCE(SUM(batches_finished), 0) AS n FROM run_counter_deltas WHERE run_id = 4`,
    )) as { n: string }[];
    expect(Number(deltas[0]?.n)).toBe(1);

    // A pass with nothing past the retention deletes nothing.
    expect(await retention.prune()).toBe(0);
    expect(await prunedMetric()).toBe(2_345);
  });
});
