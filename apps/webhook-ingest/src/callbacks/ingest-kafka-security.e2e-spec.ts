import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics } from '@ums/contracts';
import { createDataSource, runPendingMigrations } from '@ums/platform';
import {
  compiledEntry,
  createTestDatabase,
  createTestPki,
  ManagedProcess,
  type SecureKafka,
  serviceEnv,
  serviceMysqlEnv,
  startSecureKafka,
  startServiceProcess,
  testLogDir,
} from '@ums/testing';

jest.setTimeout(240_000);

/**
 * A real service (webhook-ingest) on a broker that only speaks TLS and SASL: it starts and turns ready
 * with SCRAM-SHA-512 over SASL_SSL, and refuses to start, naming the setting, when the password or
 * the protocol is wrong (within seconds: no retry loop hides the cause).
 */
describe('webhook-ingest on a SASL_SSL broker (real process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-ingest-kafka-sec-'));
  const namespace = `t-${randomBytes(4).toString('hex')}`;
  let secure: SecureKafka;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    secure = await startSecureKafka({ dir, pki: createTestPki({ dir: join(dir, 'pki') }) });
    // The deployment's topic job, with the same variables as the services: they share the builder.
    const topics = compiledEntry('apps/ums-admin/src/main.ts');
    const output = execFileSync(topics.command, [...topics.args, 'create-topics'], {
      env: { ...topics.env, ...secure.env, KAFKA_NAMESPACE: namespace },
      encoding: 'utf8',
    });
    expect(output).toMatch(new RegExp(`^${AllTopics.length} topic\\(s\\) created, 0 already present`));
    db = await createTestDatabase('ingest_kafka_sec');
    const ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    await ds.destroy();
    env = {
      ...serviceEnv(db.settings.database, namespace),
      ...serviceMysqlEnv('webhook-ingest'),
      ...secure.env,
    };
  });

  afterAll(async () => {
    await secure?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs webhook-ingest with these variables until it exits by itself; its exit code and log. */
  const failedStart = async (
    overrides: Record<string, string>,
  ): Promise<{ code: number | null; log: string }> => {
    const entry = compiledEntry('apps/webhook-ingest/src/main.ts');
    const logFile = join(testLogDir(), `ingest-kafka-sec-${randomBytes(3).toString('hex')}.log`);
    const proc = new ManagedProcess({
      name: 'webhook-ingest',
      command: entry.command,
      args: entry.args,
      env: {
        ...entry.env,
        ...env,
        ...overrides,
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: '0',
        MANAGEMENT_PORT: '0',
      },
      logFile,
    });
    proc.start();
    const code = await proc.waitForExit();
    return { code, log: readFileSync(logFile, 'utf8') };
  };

  it('starts and turns ready with SCRAM-SHA-512 over SASL_SSL', async () => {
    const ingest = await startServiceProcess({ app: 'webhook-ingest', env });
    try {
      const ready = (await (await fetch(`${ingest.managementUrl}/health/ready`)).json()) as {
        checks: Record<string, { ok: boolean }>;
      };
      expect(ready.checks['kafka-producer']?.ok).toBe(true);
    } finally {
      await ingest.process.stop();
    }
  });

  it('refuses to start with a wrong password, naming KAFKA_SASL_PASSWORD and not the password', async () => {
    const { code, log } = await failedStart({ KAFKA_SASL_PASSWORD: 'wrong-password-123' });
    expect(code).toBe(1);
    expect(log).toMatch(
      /Kafka refused SASL SCRAM-SHA-512 authentication; check KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD/,
    );
    expect(log).not.toContain('wrong-password-123');
  });

  it('create-topics refuses a wrong password at once, naming KAFKA_SASL_PASSWORD', () => {
    const topics = compiledEntry('apps/ums-admin/src/main.ts');
    let stderr = '';
    try {
      execFileSync(topics.command, [...topics.args, 'create-topics'], {
        env: { ...topics.env, ...secure.env, KAFKA_SASL_PASSWORD: 'wrong-password-456' },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error: unknown) {
      stderr = String((error as { stderr?: unknown }).stderr);
    }
    expect(stderr).toMatch(
      /^create-topics failed: Kafka refused SASL SCRAM-SHA-512 authentication; check KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD$/m,
    );
    expect(stderr).not.toContain('wrong-password-456');
  });

  it('refuses to start as a plain client on the SASL_SSL port, naming KAFKA_SECURITY_PROTOCOL', async () => {
    const { code, log } = await failedStart({
      KAFKA_SECURITY_PROTOCOL: 'PLAINTEXT',
      KAFKA_SSL_CA_FILE: '',
      KAFKA_SASL_MECHANISM: '',
      KAFKA_SASL_USERNAME: '',
      KAFKA_SASL_PASSWORD: '',
    });
    expect(code).toBe(1);
    expect(log).toMatch(/Kafka closed the connection .*check KAFKA_SECURITY_PROTOCOL=PLAINTEXT/);
  });
});
