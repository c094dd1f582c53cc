import { randomBytes } from 'node:crypto';
import { AllTopics, TENANT_HEADER } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  sumMetric,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import { OwnMariadbServer } from './test/own-mariadb-server';

jest.setTimeout(300_000);

/** How long MariaDB stays down: a restart or a failover, as in the issue (six seconds and more). */
const OUTAGE_MS = 8_000;

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
  let mariadb: OwnMariadbServer;
  const services = new Map<App, ServiceProcess>();
  const database = `ums_outage_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    mariadb = await OwnMariadbServer.start();
    await mariadb.createDatabase(database);
    const ds = createDataSource(mariadb.settings(database));
    await ds.initialize();
    try {
      await runPendingMigrations(ds);
    } finally {
      await ds.destroy();
    }
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    const env = {
      ...serviceEnv(database, namespace),
      MYSQL_PORT: String(mariadb.port),
      MYSQL_HOST: '127.0.0.1',
      MYSQL_USER: 'root',
      MYSQL_PASSWORD: '',
    };
    const started = await Promise.all(
      APPS.map(
        async (app) => [app, await startServiceProcess({ app, env, readyTimeoutMs: 120_000 })] as const,
      ),
    );
    for (const [app, service] of started) services.set(app, service);
  });

  afterAll(async () => {
    await Promise.all([...services.values()].map((s) => s.process.stop()));
    await mariadb?.destroy();
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
    await mariadb.pause();
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

    await mariadb.resume();
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
});
