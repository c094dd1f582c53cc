import { createDataSource, loadConfig, MetricsRegistry, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryRetention } from './delivery-retention.service';

const DAY_MS = 86_400_000;

describe('delivery retention (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let registry: MetricsRegistry;
  let retention: DeliveryRetention;
  let seq = 0;

  beforeAll(async () => {
    db = await createTestDatabase('delivery_retention');
    ds = createDataSource({ ...db.settings, poolSize: 4 });
    await ds.initialize();
    await runPendingMigrations(ds);
    registry = new MetricsRegistry('test');
    retention = new DeliveryRetention(
      new DeliveriesRepository(ds),
      loadConfig(DeliveriesConfig, { WEBHOOK_DELIVERED_RETENTION_MS: String(7 * DAY_MS) }),
      new DeliveriesMetrics(registry),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** `n` rows in `state`, created `createdDaysAgo` and (DELIVERED) delivered `deliveredDaysAgo` ago, in id order. */
  async function rows(
    n: number,
    state: string,
    createdDaysAgo: number,
    deliveredDaysAgo: number | null = state === 'DELIVERED' ? createdDaysAgo : null,
  ): Promise<string[]> {
    const values: string[] = [];
    const params: unknown[] = [];
    for (let i = 0; i < n; i++) {
      seq += 1;
      // As the dispatcher writes them: PENDING rows carry a lease (next_attempt_at), settled ones none.
      values.push(
        `('sub_a', ?, 'message.status', '{}', ?, ?,
          ${state === 'PENDING' ? 'UTC_TIMESTAMP(3) + INTERVAL 1 MINUTE' : 'NULL'},
          ${deliveredDaysAgo === null ? 'NULL' : 'UTC_TIMESTAMP(3) - INTERVAL ? SECOND'},
          UTC_TIMESTAMP(3) - INTERVAL ? SECOND)`,
      );
      params.push(`evt_${seq}`, state, state === 'DELIVERED' ? 1 : 0);
      if (deliveredDaysAgo !== null) params.push(Math.round(deliveredDaysAgo * 86_400));
      params.push(Math.round(createdDaysAgo * 86_400));
    }
    const first = seq - n + 1;
    await ds.query(
      `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state, attempts, next_attempt_at,
         delivered_at, created_at) VALUES ${values.join(', ')}`,
      params,
    );
    const found = (await ds.query('SELECT id FROM deliveries WHERE event_id IN (?) ORDER BY id', [
      Array.from({ length: n }, (_, i) => `evt_${first + i}`),
    ])) as { id: string }[];
    return found.map((r) => String(r.id));
  }

  async function remaining(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const [row] = (await ds.query('SELECT COUNT(*) AS n FROM deliveries WHERE id IN (?)', [ids])) as {
      n: string;
    }[];
    return Number(row?.n);
  }

  it('deletes DELIVERED rows past the retention, oldest first over several windows, and nothing owed or young', async () => {
    const oldDelivered = await rows(5, 'DELIVERED', 10);
    const missed = await rows(1, 'MISSED', 10);
    const deadLettered = await rows(1, 'DEAD_LETTERED', 10);
    const pending = await rows(1, 'PENDING', 10);
    const replayedLately = await rows(3, 'DELIVERED', 10, 0.05);
    const manyOld = await rows(2_500, 'DELIVERED', 9);
    const young = await rows(4, 'DELIVERED', 1);
    // An old row after a young one (clocks differ between writers): the pass ends at the first young row.
    const oldAfterYoung = await rows(2, 'DELIVERED', 8);

    await expect(retention.prune()).resolves.toBe(2_505);
    expect(await remaining(oldDelivered)).toBe(0);
    expect(await remaining(manyOld)).toBe(0);
    expect(await remaining(missed)).toBe(1);
    expect(await remaining(deadLettered)).toBe(1);
    expect(await remaining(pending)).toBe(1);
    expect(await remaining(replayedLately)).toBe(3);
    expect(await remaining(young)).toBe(4);
    expect(await remaining(oldAfterYoung)).toBe(2);
    expect(await registry.getSingleMetricAsString('ums_webhook_deliveries_pruned_total')).toMatch(/ 2505$/m);

    // The next pass starts from the oldest row again: what aged since goes then.
    await expect(retention.prune()).resolves.toBe(0);
    await ds.query('UPDATE deliveries SET delivered_at = created_at WHERE id IN (?)', [replayedLately]);
    await expect(retention.prune()).resolves.toBe(3);
    expect(await remaining(replayedLately)).toBe(0);
    expect(await remaining([...missed, ...deadLettered, ...pending, ...young, ...oldAfterYoung])).toBe(9);
  });

  it('reads through the (state, next_attempt_at) index in id order: no table scan, no sort', async () => {
    // TRADITIONAL: MySQL 9.7 printed a tree by default (explain_format); MariaDB 10.11 and MySQL 8 take it too.
    const plan = (await ds.query(
      `EXPLAIN FORMAT=TRADITIONAL SELECT id FROM deliveries FORCE INDEX (idx_deliveries_state_next_attempt)
        WHERE state = 'DELIVERED' AND next_attempt_at IS NULL AND id > ? ORDER BY id LIMIT 1000`,
      ['0'],
    )) as { key: string | null; type: string; Extra: string | null }[];
    expect(plan).toHaveLength(1);
    expect(plan[0]?.key).toBe('idx_deliveries_state_next_attempt');
    // ref (DELIVERED, NULL) filtered on id, or a range on the key's id suffix: either walks index order.
    expect(['ref', 'range']).toContain(plan[0]?.type);
    expect(plan[0]?.Extra ?? '').not.toMatch(/filesort/);
  });
});
