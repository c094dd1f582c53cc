import { randomBytes } from 'node:crypto';
import { AllTopics, RunRequestedV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

const CAMPAIGNS = 12;
const ROUNDS = 3;

describe('cron scheduling with two scheduler replicas', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let namespace: string;
  const replicas: ServiceProcess[] = [];
  let consumer: Consumer;
  const requests: RunRequestedV1[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('scheduler_replicas');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    consumer = testKafka().consumer({ groupId: 'test-run-requests' });
    await consumer.connect();
    await consumer.subscribe({ topic: names.topic(Topics.runRequested.name), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        requests.push(JSON.parse(String(message.value)) as RunRequestedV1);
        await Promise.resolve();
      },
    });
    // No expander: each request must appear exactly once. A long deadline keeps the sweeper out of it.
    const env = {
      ...serviceEnv(db.settings.database, namespace),
      SCHEDULER_TICK_MS: '50',
      SCHEDULER_BATCH: '3',
      CHECKPOINT_DEADLINE_MS: '600000',
    };
    for (const instance of ['a', 'b']) {
      replicas.push(await startServiceProcess({ app: 'campaign-scheduler', instance, env }));
    }
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_wa', 'tenant-a', 'wa', 'simulator', 'whatsapp', '{}', 50, 1)`,
    );
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.stop()));
    await consumer?.disconnect();
    await ds?.destroy();
    await db?.drop();
  });

  it('creates each cron run exactly once and publishes it exactly once, however often a fire is triggered', async () => {
    const ids: string[] = [];
    for (let i = 0; i < CAMPAIGNS; i++) {
      const [replica] = i % 2 === 0 ? replicas : [...replicas].reverse();
      const response = await fetch(`${replica?.url}/v1/campaigns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tenantId: 'tenant-a',
          name: `Daily ${i}`,
          channel: 'whatsapp',
          credentialId: 'cred_wa',
          template: { templateName: 'daily_digest', templateParameters: ['{{name}}'] },
          schedule: { kind: 'cron', cron: '0 9 * * *', timeZone: 'Europe/Berlin' },
        }),
      });
      expect(response.status).toBe(201);
      const id = String(((await response.json()) as { id: string }).id);
      const started = await fetch(`${replica?.url}/v1/campaigns/${id}/start`, { method: 'POST' });
      const body = (await started.json()) as { state: string; nextFireAt: string; runs: unknown[] };
      expect(body.state).toBe('ACTIVE');
      expect(body.runs).toHaveLength(0);
      // 09:00 in Berlin is 08:00 UTC in winter.
      expect(body.nextFireAt).toMatch(/T08:00:00\.000Z$/);
      ids.push(id);
    }

    // Pretend the fire times came: each round moves every campaign's next fire into the past, twice
    // (the second trigger of the same fire time must not create anything), while both replicas race.
    const fireTimes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const fireAt = new Date(Date.now() - (ROUNDS - round) * 60_000);
      fireAt.setUTCSeconds(0, 0);
      fireTimes.push(fireAt.toISOString());
      for (let trigger = 0; trigger < 2; trigger++) {
        await ds.query('UPDATE campaigns SET next_fire_at = ? WHERE id IN (?)', [fireAt, ids]);
        await waitUntil(
          `round ${round} trigger ${trigger} fired`,
          async () => {
            const rows = (await ds.query(
              'SELECT COUNT(*) AS n FROM campaigns WHERE id IN (?) AND next_fire_at <= UTC_TIMESTAMP(3)',
              [ids],
            )) as { n: string }[];
            return Number(rows[0]?.n) === 0;
          },
          { timeoutMs: 30_000, intervalMs: 50 },
        );
      }
    }

    const runs = (await ds.query(
      'SELECT id, campaign_id, fire_at, state, lease_epoch FROM runs WHERE campaign_id IN (?) ORDER BY id',
      [ids],
    )) as { id: string; campaign_id: string; fire_at: Date; state: string; lease_epoch: number }[];
    expect(runs).toHaveLength(CAMPAIGNS * ROUNDS);
    for (const id of ids) {
      const fires = runs.filter((r) => r.campaign_id === id).map((r) => r.fire_at.toISOString());
      expect(fires.sort()).toEqual([...fireTimes].sort());
    }
    await waitUntil('every run scheduled', async () => {
      const rows = (await ds.query(
        `SELECT COUNT(*) AS n FROM runs WHERE campaign_id IN (?) AND state = 'SCHEDULED'`,
        [ids],
      )) as { n: string }[];
      return Number(rows[0]?.n) === CAMPAIGNS * ROUNDS;
    });
    await waitUntil('every request consumed', () => requests.length >= CAMPAIGNS * ROUNDS, {
      timeoutMs: 30_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // room for a duplicate to show up
    const perRun = new Map<string, number>();
    for (const request of requests) perRun.set(request.runId, (perRun.get(request.runId) ?? 0) + 1);
    expect(perRun.size).toBe(CAMPAIGNS * ROUNDS);
    expect([...perRun.values()].every((n) => n === 1)).toBe(true);
    expect(requests.every((r) => r.leaseEpoch === 1 && r.reason === 'scheduled')).toBe(true);

    // Both replicas took part (SKIP LOCKED splits the work rather than one replica doing it all).
    const fired = await Promise.all(
      replicas.map(async (replica) => {
        const metrics = await (await fetch(`${replica.managementUrl}/metrics`)).text();
        return Number(/^ums_scheduler_cron_fires_total\{[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0);
      }),
    );
    expect(fired.reduce((a, b) => a + b, 0)).toBe(CAMPAIGNS * ROUNDS);
    process.stdout.write(`cron fires per replica: ${fired.join(', ')}\n`);
  });
});
