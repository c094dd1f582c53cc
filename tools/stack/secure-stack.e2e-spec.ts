import { connectTestDatabase, testMysqlAccounts } from '@ums/testing';
import { defaultLogDir, type LocalStack, stackUrls, startLocalStack } from './local-stack';
import {
  createTenantApiKey,
  PIPELINE_SCOPES,
  type PipelineCampaignResult,
  runPipelineCampaign,
} from './pipeline-campaign';
import { type SecureEngines, startSecureEngines } from './secure-engines';

const RECIPIENTS = 2_000;

/** What `npm run demo -- --secure` runs: the whole stack on secured engines, each service as its own account. */
describe('the stack on secured engines', () => {
  const logDir = defaultLogDir('test-logs/secure-stack');
  let engines: SecureEngines | undefined;
  let stack: LocalStack | undefined;
  const mysqlUsers = new Set<string>();

  beforeAll(async () => {
    engines = await startSecureEngines(() => undefined);
    stack = await startLocalStack({
      kafkaBrokers: engines.brokers,
      kafkaDataDir: '',
      mysqlDatabase: engines.database,
      mysqlAccounts: testMysqlAccounts(),
      logDir,
      env: { ...engines.env, LOG_LEVEL: 'warn' },
      // The test's subscriber listens on loopback, which only internal subscribers may use.
      serviceEnv: { 'webhook-dispatcher': { WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true' } },
    });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    await engines?.stop();
  }, 90_000);

  /** The accounts connected to MariaDB now (every connection is TLS: the server requires it). */
  async function recordMysqlUsers(): Promise<void> {
    const admin = await connectTestDatabase((engines as SecureEngines).mysqlAdmin);
    try {
      const [rows] = await admin.query('SELECT DISTINCT USER AS user FROM information_schema.PROCESSLIST');
      for (const row of rows as { user: string }[]) if (row.user !== 'root') mysqlUsers.add(row.user);
    } finally {
      await admin.end();
    }
  }

  it('runs a campaign with no duplicate and nothing lost, each service as its own MySQL account', async () => {
    const running = stack as LocalStack;
    const urls = stackUrls(running);
    const apiKey = await createTenantApiKey({
      schedulerUrl: urls.scheduler,
      operatorKey: running.operatorKey,
      tenantId: 'secure',
      scopes: PIPELINE_SCOPES,
    });
    await recordMysqlUsers();
    const result: PipelineCampaignResult = await runPipelineCampaign({
      urls,
      brokers: running.brokers,
      kafka: (engines as SecureEngines).kafka,
      recipients: RECIPIENTS,
      rate: 2_000,
      permanentFailureRate: 0.01,
      error5xxRate: 0.01,
      rate429: 0,
      latency: { minMs: 1, p50Ms: 5, p99Ms: 30 },
      callbacks: {
        deliveredRate: 0.9,
        readRate: 0.5,
        duplicateRate: 0.01,
        outOfOrderRate: 0.01,
        delayMs: 100,
      },
      apiKey,
      operatorKey: running.operatorKey,
      tenantId: 'secure',
      subscriberBatch: 50,
      say: () => undefined,
      timeoutMs: 300_000,
    });
    await recordMysqlUsers();
    expect({
      state: result.runState,
      total: result.counters.total,
      pending: result.counters.pending + result.counters.sending,
      duplicates: result.simulator.duplicates,
      lost: result.lost,
      badSignatures: result.invalidSignatures,
    }).toEqual({
      state: 'COMPLETED',
      total: RECIPIENTS,
      pending: 0,
      duplicates: 0,
      lost: 0,
      badSignatures: 0,
    });
    expect(result.relayed).toBe(result.statusEvents);
    expect([...mysqlUsers].sort()).toEqual([
      'ums_dispatcher',
      'ums_expander',
      'ums_ingest',
      'ums_scheduler',
      'ums_sender',
    ]);
  }, 420_000);
});
