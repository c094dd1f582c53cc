import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AllTopics,
  Channel,
  MessageStatus,
  type MessageStatusV1,
  TENANT_HEADER,
  Topics,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  LoopbackSubscriber,
  type MariadbServerHandle,
  serviceEnv,
  type ServiceProcess,
  startMariadbServer,
  startServiceProcess,
  sumMetric,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';

jest.setTimeout(300_000);

/** How long MariaDB stays down: a restart or a failover, as in the issue (six seconds and more). */
const OUTAGE_MS = 8_000;
/** The dispatcher's pending lease: a delivery's result not written within it is attempted again. */
const LEASE_MS = 30_000;

const APPS = [
  'campaign-scheduler',
  'batch-expander',
  'notification-sender',
  'webhook-ingest',
  'webhook-dispatcher',
] as const;
type App = (typeof APPS)[number];

interface Readiness {
  readonly status: number;
  readonly checks: Record<string, { ok: boolean; detail?: string }>;
}

/**
 * Every MySQL service, as processes, against a MariaDB of the test's own, which is stopped for a
 * few seconds: no process exits, readiness says not-ready naming mysql and comes back by itself,
 * the APIs answer 503 with a code (never 500, never a host or SQL), and they work again afterwards.
 */
describe('a MariaDB restart under every service (real processes, own mariadbd)', () => {
  let mariadb: MariadbServerHandle;
  const mariadbDir = mkdtempSync(join(tmpdir(), 'ums-outage-mariadb-'));
  const services = new Map<App, ServiceProcess>();
  const database = `ums_outage_${randomBytes(4).toString('hex')}`;
  let names: KafkaNames;
  let subscriber: LoopbackSubscriber | undefined;

  beforeAll(async () => {
    mariadb = await startMariadbServer({ dir: mariadbDir, bufferPoolMb: 64 });
    // Migrations as the migrator; each service connects as its own account (startServiceProcess).
    const ds = createDataSource(await mariadb.createDatabase(database));
    await ds.initialize();
    try {
      await runPendingMigrations(ds);
    } finally {
      await ds.destroy();
    }
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const env = {
      ...serviceEnv(database, namespace),
      MYSQL_PORT: String(mariadb.port),
      MYSQL_HOST: '127.0.0.1',
    };
    const dispatcherEnv: Record<string, string> = {
      WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
      WEBHOOK_PENDING_LEASE_MS: String(LEASE_MS),
      WEBHOOK_TIMEOUT_MS: '20000',
    };
    const started = await Promise.all(
      APPS.map(
        async (app) =>
          [
            app,
            await startServiceProcess({
              app,
              env: app === 'webhook-dispatcher' ? { ...env, ...dispatcherEnv } : env,
              readyTimeoutMs: 120_000,
            }),
          ] as const,
      ),
    );
    for (const [app, service] of started) services.set(app, service);
  });

  afterAll(async () => {
    await Promise.all([...services.values()].map((s) => s.process.stop()));
    await subscriber?.stop();
    await mariadb?.stop();
    rmSync(mariadbDir, { recursive: true, force: true });
  });

  const service = (app: App): ServiceProcess => {
    const found = services.get(app);
    if (found === undefined) throw new Error(`${app} not started`);
    return found;
  };

  const readiness = async (app: App): Promise<Readiness> => {
    const response = await fetch(`${service(app).managementUrl}/health/ready`);
    const body = (await response.json()) as { checks: Readiness['checks'] };
    return { status: response.status, checks: body.checks };
  };

  const call = async (app: App, method: string, path: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${service(app).url}${path}`, {
      method,
      headers: {
        ...bearer(TEST_OPERATOR_KEY),
        [TENANT_HEADER]: 'outage',
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: method === 'POST' ? '{}' : undefined,
    });
    return { status: response.status, text: await response.text() };
  };

  /** One call per API that needs MySQL: the scheduler's and dispatcher's lists, an unknown callback credential. */
  const probes = (): Promise<Record<string, { status: number; text: string }>> =>
    Promise.all([
      call('campaign-scheduler', 'GET', '/v1/campaigns'),
      call('webhook-dispatcher', 'GET', '/v1/subscribers'),
      call('webhook-ingest', 'POST', `/v1/callbacks/simulator/cred-${randomBytes(6).toString('hex')}`),
    ]).then(([scheduler, dispatcher, ingest]) => ({ scheduler, dispatcher, ingest }));

  const alive = (): Record<string, boolean> =>
    Object.fromEntries(APPS.map((app) => [app, service(app).process.running]));

  it('keeps every service up, not ready while MariaDB is down, answering 503, and resumes by itself', async () => {
    const before = await probes();
    expect({
      scheduler: before['scheduler']?.status,
      dispatcher: before['dispatcher']?.status,
      ingest: before['ingest']?.status,
    }).toEqual({ scheduler: 200, dispatcher: 200, ingest: 404 });

    const downAt = Date.now();
    await mariadb.stop();
    for (const app of APPS) {
      const notReady = await waitUntil(
        `${app} not ready`,
        async () => {
          const ready = await readiness(app);
          return ready.status === 503 && ready.checks['mysql']?.ok === false ? ready : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 200, abortIf: service(app).process.exitedUnexpectedly },
      );
      expect(notReady.checks['mysql']?.ok).toBe(false);
    }
    const during = await probes();
    for (const [api, answer] of Object.entries(during)) {
      expect({ api, status: answer.status }).toEqual({ api, status: 503 });
      // The code says what to do (retry); no host, port, driver text or SQL reaches the caller.
      expect(answer.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|SELECT|\bFROM\b/);
    }
    expect(JSON.parse(during['scheduler']?.text ?? '{}')).toMatchObject({
      error: { code: 'DEPENDENCY_UNAVAILABLE' },
    });
    expect(JSON.parse(during['dispatcher']?.text ?? '{}')).toMatchObject({
      error: { code: 'DEPENDENCY_UNAVAILABLE' },
    });
    // Down long enough for every periodic task (sweepers, claim expiry, schedulers) to fail a few times.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, downAt + OUTAGE_MS - Date.now())));
    expect(alive()).toEqual(Object.fromEntries(APPS.map((app) => [app, true])));

    await mariadb.start();
    for (const app of APPS) {
      await waitUntil(`${app} ready again`, async () => (await readiness(app)).status === 200, {
        timeoutMs: 60_000,
        intervalMs: 250,
        abortIf: service(app).process.exitedUnexpectedly,
      });
    }
    const after = await probes();
    expect({
      scheduler: after['scheduler']?.status,
      dispatcher: after['dispatcher']?.status,
      ingest: after['ingest']?.status,
    }).toEqual({ scheduler: 200, dispatcher: 200, ingest: 404 });
    expect(alive()).toEqual(Object.fromEntries(APPS.map((app) => [app, true])));
    // Nothing reached the process-level safety net: every failure was handled where it happened.
    const unhandled = await Promise.all(
      APPS.map(async (app) => [
        app,
        await sumMetric([service(app).managementUrl], 'ums_process_unhandled_errors_total'),
      ]),
    );
    expect(Object.fromEntries(unhandled)).toEqual(Object.fromEntries(APPS.map((app) => [app, 0])));
  });

  it('writes the results of deliveries answered while MariaDB is down once it is back: none is sent again', async () => {
    const hook = await LoopbackSubscriber.start();
    subscriber = hook;
    const created = await fetch(`${service('webhook-dispatcher').url}/v1/subscribers`, {
      method: 'POST',
      headers: {
        ...bearer(TEST_OPERATOR_KEY),
        [TENANT_HEADER]: 'outage',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ url: hook.url(), eventTypes: ['message.status'], internal: true }),
    });
    expect(created.status).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    hook.secret = secret;
    // Answers come late: the results are written back while MariaDB is down.
    hook.mode = { kind: 'ok', delayMs: 4_000 };
    const ids = Array.from({ length: 20 }, (_, i) => `outage-${i}`);
    const producer = testKafka().producer();
    await producer.connect();
    try {
      await producer.send({
        topic: names.topic(Topics.messageStatus.name),
        acks: -1,
        messages: ids.map((eventId, i) => ({
          key: 'cmp-outage',
          value: JSON.stringify(statusEvent(eventId, i)),
        })),
      });
    } finally {
      await producer.disconnect();
    }
    const states = async (): Promise<Record<string, number>> => {
      const ds = createDataSource(mariadb.settings(database));
      await ds.initialize();
      try {
        const rows: { state: string; n: string | number }[] = await ds.query(
          'SELECT state, COUNT(*) AS n FROM deliveries WHERE subscriber_id = ? GROUP BY state',
          [id],
        );
        return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
      } finally {
        await ds.destroy();
      }
    };
    await waitUntil('every delivery attempted', () => hook.requests === ids.length, { timeoutMs: 30_000 });
    // Stored PENDING (leased) while their answers are still on the way.
    expect(
      await waitUntil('every delivery stored', async () => (await states())['PENDING'] === ids.length),
    ).toBe(true);
    const downAt = Date.now();
    await mariadb.stop();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, downAt + OUTAGE_MS - Date.now())));
    await mariadb.start();
    // Written well within the lease: the sweeper never takes them, so nothing is sent twice.
    const settled = await waitUntil(
      'every delivery recorded DELIVERED',
      async () => {
        const now = await states();
        return now['DELIVERED'] === ids.length ? now : undefined;
      },
      { timeoutMs: LEASE_MS / 2, intervalMs: 500 },
    );
    expect(settled).toEqual({ DELIVERED: ids.length });
    expect(hook.requests).toBe(ids.length);
    expect([...hook.accepted].sort()).toEqual([...ids].sort());
    expect(alive()).toEqual(Object.fromEntries(APPS.map((app) => [app, true])));
  });
});

/** A DELIVERED status of the outage tenant, as the sender publishes it. */
function statusEvent(eventId: string, index: number): MessageStatusV1 {
  return {
    eventId,
    messageId: String(index + 1),
    tenantId: 'outage',
    campaignId: 'cmp-outage',
    channel: Channel.Sms,
    recipient: '+4915100000001',
    status: MessageStatus.Delivered,
    occurredAt: new Date().toISOString(),
  };
}
