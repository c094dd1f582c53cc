import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scope } from '@ums/contracts';
import {
  compiledEntry,
  createTestDatabase,
  grantTestMysqlUsers,
  serviceMysqlEnv,
  testMysqlAccounts,
  jsonCall,
  ManagedProcess,
  TEST_OPERATOR_KEY,
  TEST_SECRETS_KEYS,
  testBrokers,
  waitUntil,
} from '@ums/testing';
import { defaultLogDir, SERVICE_NAMES, stackUrls, startLocalStack, type LocalStack } from './local-stack';
import { createTenantApiKey } from './pipeline-campaign';

const EXPECTED_CHECKS: Record<string, string[]> = {
  'campaign-scheduler': ['kafka-producer', 'kafka-consumers', 'mysql', 'redis'],
  'batch-expander': ['kafka-producer', 'kafka-consumers', 'mysql'],
  'notification-sender': ['kafka-producer', 'kafka-consumers', 'mysql', 'redis'],
  'webhook-ingest': ['kafka-producer', 'kafka-consumers', 'mysql'],
  'webhook-dispatcher': ['kafka-producer', 'kafka-consumers', 'mysql', 'redis'],
  'provider-simulator': [],
};

/** Every app as a real process against the real broker, MariaDB and Redis. */
describe('the whole stack', () => {
  const logDir = defaultLogDir('test-logs/stack');
  let stack: LocalStack | undefined;
  const steps: string[] = [];
  let database: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase('ums_stack');
    await database.drop(); // the migrate job creates it, as in a fresh deployment
    // The accounts and grants come first (a DBA's step); grants may name a schema not made yet.
    await grantTestMysqlUsers(database.admin, database.settings.database);
    stack = await startLocalStack({
      kafkaBrokers: testBrokers().join(','),
      kafkaDataDir: '',
      mysqlDatabase: database.settings.database,
      mysqlAccounts: testMysqlAccounts(),
      logDir,
      env: { LOG_LEVEL: 'warn' },
      onStep: (line) => steps.push(line),
    });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await database.drop();
  }, 60_000);

  it('starts every app ready against its real dependencies, with metrics on its management port', async () => {
    expect(stack?.services.map((s) => s.name)).toEqual([...SERVICE_NAMES]);
    for (const service of stack?.services ?? []) {
      const live = await fetch(`${service.managementUrl}/health/live`);
      expect(live.status).toBe(200);
      const ready = await fetch(`${service.managementUrl}/health/ready`);
      const body = (await ready.json()) as { status: string; checks: Record<string, { ok: boolean }> };
      expect({ service: service.name, status: ready.status, body: body.status }).toEqual({
        service: service.name,
        status: 200,
        body: 'ok',
      });
      expect(Object.keys(body.checks).sort()).toEqual([...(EXPECTED_CHECKS[service.name] ?? [])].sort());
      const metrics = await fetch(`${service.managementUrl}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toContain(`process_cpu_user_seconds_total{service="${service.name}"}`);
      if ((EXPECTED_CHECKS[service.name] ?? []).includes('kafka-producer'))
        expect(text).toContain('# HELP ums_kafka_messages_produced_total');
      // The API port does not serve them.
      for (const path of ['/health/live', '/health/ready', '/metrics']) {
        const refused = await fetch(`${service.url}${path}`);
        const error = ((await refused.json()) as { error?: { code?: string } }).error;
        expect({ service: service.name, path, status: refused.status, code: error?.code }).toEqual({
          service: service.name,
          path,
          status: 404,
          code: 'ROUTE_NOT_FOUND',
        });
      }
    }
  });

  it('gives the APIs an operator key of its own that makes tenant keys; no log carries a key', async () => {
    const running = stack as LocalStack;
    expect(running.operatorKey).toMatch(/^umso_[A-Za-z0-9_-]{43}$/);
    expect(running.operatorKey).not.toBe(TEST_OPERATOR_KEY);
    const urls = stackUrls(running);
    const unkeyed = [
      await jsonCall(urls.scheduler, 'GET', '/v1/campaigns'),
      await jsonCall(urls.dispatcher, 'GET', '/v1/subscribers'),
      await jsonCall(urls.scheduler, 'GET', '/v1/campaigns', undefined, TEST_OPERATOR_KEY),
    ];
    expect(unkeyed.map((a) => [a.status, (a.body['error'] as { code: string }).code])).toEqual([
      [401, 'AUTH_MISSING'],
      [401, 'AUTH_MISSING'],
      [401, 'AUTH_KEY_UNKNOWN'],
    ]);
    const key = await createTenantApiKey({
      schedulerUrl: urls.scheduler,
      operatorKey: running.operatorKey,
      tenantId: 'stack',
      scopes: [Scope.CampaignsRead, Scope.SubscribersRead],
    });
    // Made at the scheduler, known to the dispatcher too: both read the keys of one database.
    const keyed = [
      await jsonCall(urls.scheduler, 'GET', '/v1/campaigns', undefined, key),
      await jsonCall(urls.dispatcher, 'GET', '/v1/subscribers', undefined, key),
      await jsonCall(urls.dispatcher, 'POST', '/v1/subscribers', {}, key),
    ];
    expect(keyed.map((a) => a.status)).toEqual([200, 200, 403]);
    for (const service of running.services) {
      const log = readFileSync(join(logDir, `${service.label}.log`), 'utf8');
      expect({ service: service.label, operatorKey: log.includes(running.operatorKey) }).toEqual({
        service: service.label,
        operatorKey: false,
      });
      expect(log).not.toContain(key);
    }
  });

  it('reports not ready, naming the dependency, when Redis is unreachable (and stays live)', async () => {
    const { command, args } = compiledEntry('apps/notification-sender/src/main.ts');
    // A log of its own: the port is read back from it, so an older run's lines must not be there.
    const noRedisLog = join(logDir, `sender-no-redis-${Date.now()}.log`);
    const sender = new ManagedProcess({
      name: 'sender-no-redis',
      command,
      args,
      logFile: noRedisLog,
      env: {
        KAFKA_BROKERS: testBrokers().join(','),
        MYSQL_DATABASE: database.settings.database,
        ...serviceMysqlEnv('notification-sender'),
        REDIS_URL: 'redis://127.0.0.1:1/0',
        SECRETS_KEYS: TEST_SECRETS_KEYS,
        HTTP_PORT: '0',
        MANAGEMENT_PORT: '0',
        LOG_LEVEL: 'info',
        HTTP_HOST: '127.0.0.1',
      },
    });
    // Port 0 is chosen by the OS; read the management port back from its log line.
    sender.start();
    try {
      const url = await waitUntil('the sender to listen', () => managementUrl(noRedisLog), {
        timeoutMs: 30_000,
        abortIf: sender.exitedUnexpectedly,
      });
      const ready = await waitUntil('a readiness answer', async () => {
        const res = await fetch(`${url}/health/ready`);
        return {
          status: res.status,
          body: (await res.json()) as { checks: Record<string, { ok: boolean; detail?: string }> },
        };
      });
      expect(ready.status).toBe(503);
      expect(ready.body.checks['redis']?.ok).toBe(false);
      expect(ready.body.checks['mysql']?.ok).toBe(true);
      expect((await fetch(`${url}/health/live`)).status).toBe(200);
    } finally {
      await sender.stop();
    }
  }, 60_000);

  it('refuses to start with invalid configuration, naming each bad variable', async () => {
    const { command, args } = compiledEntry('apps/campaign-scheduler/src/main.ts');
    const logFile = join(logDir, 'scheduler-bad-config.log');
    const proc = new ManagedProcess({
      name: 'scheduler-bad-config',
      command,
      args,
      logFile,
      env: {
        KAFKA_BROKERS: 'not a broker',
        MYSQL_PORT: 'abc',
        HTTP_PORT: '3000',
        MYSQL_USER: '',
        MYSQL_SSL_MODE: 'VERIFY_CA',
      },
    }).start();
    expect(await proc.waitForExit()).toBe(1);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('KAFKA_BROKERS: KAFKA_BROKERS entries must be host:port');
    expect(log).toContain('MYSQL_PORT');
    expect(log).toContain("MYSQL_USER: MYSQL_USER must be set (the service's own account)");
    expect(log).toContain('MYSQL_SSL_MODE: MYSQL_SSL_MODE VERIFY_CA needs MYSQL_SSL_CA_FILE');
  }, 30_000);

  it('restarts a service that dies, as an orchestrator would, and says so', async () => {
    const sender = stack?.services.find((s) => s.name === 'notification-sender');
    const pid = sender?.process.pid;
    if (sender === undefined || pid === undefined) throw new Error('no notification-sender running');
    // Killed from outside the stack (as the OOM killer or a crash would), not through its handle.
    process.kill(pid, 'SIGKILL');
    const line = await waitUntil(
      'the restart line',
      () => steps.find((step) => step.startsWith('notification-sender died (signal SIGKILL)')),
      { timeoutMs: 15_000 },
    );
    expect(line).toContain('restart 1');
    await waitUntil(
      'the sender ready again',
      async () => {
        const ready = await fetch(`${sender.managementUrl}/health/ready`);
        return ready.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(sender.process.pid).not.toBe(pid);
    expect(stack?.restarts).toEqual({ 'notification-sender': 1 });
  }, 90_000);

  it('shuts every service down gracefully on SIGTERM', async () => {
    const codes = await stack?.stop();
    stack = undefined;
    expect(codes).toEqual(Object.fromEntries(SERVICE_NAMES.map((n) => [n, 0])));
  }, 60_000);
});

function managementUrl(logFile: string): string | undefined {
  if (!existsSync(logFile)) return undefined;
  const match = /Management \(health, metrics\) on (http:\/\/[^\s"]+)/.exec(readFileSync(logFile, 'utf8'));
  return match?.[1]?.replace('[::1]', '127.0.0.1');
}
