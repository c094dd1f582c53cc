import { createTestDatabase } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../mysql/data-source-options';
import { runPendingMigrations } from '../mysql/migration-runner';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencySweeper } from './idempotency-sweeper.service';

describe('idempotency key sweeper (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let sweeper: IdempotencySweeper;

  beforeAll(async () => {
    db = await createTestDatabase('idempotency_sweeper');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    sweeper = new IdempotencySweeper(
      new IdempotencyKeysRepository(ds),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** `n` COMPLETED keys of tenant `t`, expiring `expiresInSeconds` from now (negative: expired). */
  async function keys(tenant: string, n: number, expiresInSeconds: number): Promise<void> {
    const values = Array.from({ length: n }, (_, i) => i);
    await ds.query(
      `INSERT INTO idempotency_keys (tenant_id, route, idem_key, request_hash, state, claim, status, response,
         created_at, expires_at)
       VALUES ${values.map(() => `(?, 'POST /v1/campaigns', ?, REPEAT('0', 64), 'COMPLETED', REPEAT('0', 26), 201, '{}', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL ? SECOND)`).join(', ')}`,
      values.flatMap((i) => [tenant, `key-${i}`, expiresInSeconds]),
    );
  }

  async function remaining(): Promise<Record<string, number>> {
    const rows = (await ds.query(
      'SELECT tenant_id, COUNT(*) AS n FROM idempotency_keys GROUP BY tenant_id ORDER BY tenant_id',
    )) as { tenant_id: string; n: string | number }[];
    return Object.fromEntries(rows.map((r) => [r.tenant_id, Number(r.n)]));
  }

  it('deletes every expired key in windows and keeps the live ones', async () => {
    await keys('expired', 2_500, -60);
    await keys('live', 3, 3_600);
    // Three windows of 1,000: two full, one short.
    await expect(sweeper.sweep()).resolves.toBe(2_500);
    expect(await remaining()).toEqual({ live: 3 });
    await expect(sweeper.sweep()).resolves.toBe(0);
  });
});
