import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDataSource, isInfrastructureError, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, type RedisServerHandle, startRedisServer, testLogDir } from '@ums/testing';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { CountingProvider, SendBatchHarness, seedRun, statesOf } from './test/send-batch-harness';

jest.setTimeout(180_000);

/** How long Redis stays down, from its crash to its return (the 30 s). */
const REDIS_OUTAGE_MS = 30_000;

/** Polls a condition the test drives towards (never an assertion on time). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (condition()) return;
    await sleep(10);
  }
  throw new Error(`gave up waiting until ${what}`);
}

/**
 * Redis crashes (and comes back empty) in the middle of sending, with SendBatchService on real
 * MariaDB and a redis-server of the test's own. Batches are handled as the platform consumer does:
 * an infrastructure error means the batch is handled again later. The limiter fails closed: once
 * the sends granted before the crash are done, the provider sees none until Redis is back; sending
 * then resumes by itself at the credential's floor, and every message is sent exactly once.
 */
describe('sending through a Redis outage (own redis-server, real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let server: RedisServerHandle;
  let redis: Redis;

  beforeAll(async () => {
    db = await createTestDatabase('sending_redis_outage');
    ds = createDataSource({ ...db.settings, poolSize: 8 });
    await ds.initialize();
    await runPendingMigrations(ds);
    server = await startRedisServer({ dir: join(testLogDir(), `redis-sending-outage-${process.pid}`) });
    // As the platform's connection is set up: commands fail after a few reconnection attempts.
    redis = new Redis(server.url, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
    redis.on('error', () => undefined);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
    await ds?.destroy();
    await db?.drop();
  });

  it('sends nothing while Redis is down, resumes at the floor when it is back, sends nothing twice', async () => {
    const N = 400;
    const WORKERS = 4;
    const provider = new CountingProvider(8);
    const run = await seedRun(ds, db.settings, 'outage', 'cred_outage', N);
    const harness = new SendBatchHarness({
      ds,
      redis,
      keyPrefix: 'outage:',
      credentialId: 'cred_outage',
      provider,
      limits: { ceiling: 200, floor: 40 },
    });
    const failures = Array.from({ length: WORKERS }, () => 0);
    const otherErrors: unknown[] = [];
    const batches: string[][] = [];
    for (let i = 0; i < N; i += 20) batches.push(run.ids.slice(i, i + 20));
    let finished = 0;
    const worker = async (w: number): Promise<void> => {
      for (let ids = batches.shift(); ids !== undefined; ids = batches.shift()) {
        const message = harness.batch(run, ids);
        for (;;) {
          try {
            await harness.service.send(message);
            break;
          } catch (error: unknown) {
            if (!isInfrastructureError(error)) {
              otherErrors.push(error);
              break;
            }
            failures[w] = (failures[w] ?? 0) + 1;
            await sleep(50);
          }
        }
      }
      finished++;
    };
    const driving = Promise.all(failures.map((_, w) => worker(w)));
    const allBusy = (): boolean => finished === 0 && batches.length > WORKERS;

    await until(() => provider.sends.length >= N / 4, 'a quarter is sent');
    expect(allBusy()).toBe(true);
    await server.kill();
    const crashedAt = Date.now();
    // Sends granted before the crash may still reach the provider until each worker's batch in
    // flight has failed once: from then on no grant can exist.
    const atStop = [...failures];
    await until(() => failures.every((f, w) => f > (atStop[w] ?? 0)), 'every worker met the outage');
    provider.refusing = true;
    const sentBeforeWindow = provider.sends.length;
    const atWindow = [...failures];
    await until(() => failures.every((f, w) => f >= (atWindow[w] ?? 0) + 3), 'three more failures each');
    // Redis stays down for the rest of the outage, every worker still trying; any send meanwhile is recorded.
    await sleep(Math.max(0, crashedAt + REDIS_OUTAGE_MS - Date.now()));
    provider.refusing = false;
    expect(provider.sends.length).toBe(sentBeforeWindow);
    await server.start();
    const backAt = Date.now();
    await until(() => provider.sends.length > sentBeforeWindow, 'sending resumes');
    process.stdout.write(
      `redis outage: down ${((backAt - crashedAt) / 1000).toFixed(1)} s, no send in it; first send ` +
        `${Date.now() - backAt} ms after Redis was back\n`,
    );
    await driving;
    // Retry-tier releases (none expected) would be handled by the retry consumer.
    for (let round = 0; round < 5; round++) {
      const rest = await harness.claims.unsettledAmong(run.ids);
      if (rest.length === 0) break;
      await harness.service.send(harness.batch(run, rest));
    }

    expect(otherErrors).toEqual([]);
    expect(provider.sendsWhileRefusing).toEqual([]);
    expect(sentBeforeWindow).toBeLessThan(N);
    expect(await statesOf(ds, run.runId)).toEqual({ SENT: { count: N, attempts: N } });
    expect(provider.duplicates()).toEqual([]);
    expect(new Set(provider.sends)).toEqual(new Set(run.ids));
    expect(harness.statuses.filter((s) => s.status === 'UNKNOWN')).toEqual([]);
    // Redis came back empty: the credential's state was created again at its floor.
    const reseeded = await harness.rateMetrics.stateReseeded.get();
    expect(reseeded.values.reduce((sum, v) => sum + v.value, 0)).toBe(1);
  });
});
