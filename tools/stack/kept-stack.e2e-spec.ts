import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createTestDatabase, testBrokers, testMysqlAccounts, waitUntil } from '@ums/testing';
import { defaultLogDir, type LocalStack, startLocalStack } from './local-stack';

/**
 * A kept stack (`npm run demo -- --keep`): each service runs under a service-keeper that outlives
 * the process that started it, restarts the service when it dies and says so in the service's log,
 * and passes a stop on so the service drains.
 */
describe('a kept stack', () => {
  const logDir = defaultLogDir('test-logs/kept-stack');
  let stack: LocalStack | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase('ums_kept_stack');
    stack = await startLocalStack({
      kafkaBrokers: testBrokers().join(','),
      kafkaDataDir: '',
      keepRunning: true,
      mysqlDatabase: database.settings.database,
      mysqlAccounts: testMysqlAccounts(),
      services: ['webhook-ingest'],
      logDir,
      env: { LOG_LEVEL: 'warn' },
    });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await database.drop();
  }, 60_000);

  it('restarts a service that dies under its keeper, and stops it cleanly', async () => {
    const ingest = stack?.services[0];
    const keeperPid = ingest?.process.pid;
    if (ingest === undefined || keeperPid === undefined) throw new Error('no webhook-ingest running');
    const child = (): number | undefined => {
      try {
        const out = execFileSync('pgrep', ['-P', String(keeperPid)], { encoding: 'utf8' }).trim();
        return out === '' ? undefined : Number(out.split('\n')[0]);
      } catch {
        return undefined;
      }
    };
    const first = await waitUntil('the service under its keeper', child);
    process.kill(first, 'SIGKILL');
    await waitUntil(
      'the restart line in the log',
      () =>
        readFileSync(`${logDir}/webhook-ingest.log`, 'utf8').includes(
          'webhook-ingest died (signal SIGKILL): restarting in 1 s (restart 1, 1 in a row)',
        ),
      { timeoutMs: 15_000 },
    );
    await waitUntil(
      'ready again',
      async () => (await fetch(`${ingest.managementUrl}/health/ready`)).status === 200,
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    const second = child();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(ingest.process.running).toBe(true);
    const codes = await stack?.stop();
    stack = undefined;
    expect(codes).toEqual({ 'webhook-ingest': 0 });
    expect(second === undefined ? false : alive(second)).toBe(false);
  }, 120_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
