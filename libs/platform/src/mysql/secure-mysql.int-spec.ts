import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MysqlServiceUser } from '@ums/contracts';
import {
  compiledEntry,
  connectTestDatabase,
  createTestPki,
  ManagedProcess,
  type SecureMariadb,
  serviceEnv,
  startSecureMariadb,
  type TestPki,
} from '@ums/testing';
import type { DataSource } from 'typeorm';
import { MysqlConfig } from '../config/common.config';
import { loadConfig } from '../config/config-loader';
import { buildDataSourceOptions, createDataSource } from './data-source-options';
import { runPendingMigrations } from './migration-runner';
import { openServiceDataSource } from './mysql.module';
import { mysqlSettingsFrom } from './mysql-settings.mapper';
import { MysqlStartupError } from './mysql-startup-error';
import { checkServiceGrants } from './service-grants.check';

const SERVICES: Readonly<Record<Exclude<MysqlServiceUser, 'ums_migrator'>, string>> = {
  ums_scheduler: 'campaign-scheduler',
  ums_expander: 'batch-expander',
  ums_sender: 'notification-sender',
  ums_ingest: 'webhook-ingest',
  ums_dispatcher: 'webhook-dispatcher',
};

/**
 * The platform against a MariaDB that accepts TLS only, each service as its own account with the
 * production grants (libs/contracts service-grants.ts): connections verify the server's certificate,
 * and each misconfiguration is refused with an error naming the setting to fix.
 */
describe('MySQL over TLS with least-privilege accounts (a TLS-only MariaDB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-secure-mysql-'));
  let pki: TestPki;
  let mariadb: SecureMariadb;
  const open: DataSource[] = [];

  /** Start-up as a service does it, with the environment `env` (validated by MysqlConfig). */
  const startAs = async (service: string, env: Record<string, string>): Promise<DataSource> => {
    const settings = mysqlSettingsFrom(loadConfig(MysqlConfig, env));
    const ds = await openServiceDataSource(buildDataSourceOptions({ ...settings, poolSize: 2 }), service);
    open.push(ds);
    return ds;
  };
  const refusal = async (service: string, env: Record<string, string>): Promise<MysqlStartupError> => {
    const error: unknown = await startAs(service, env).then(
      () => new Error('connected'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MysqlStartupError);
    return error as MysqlStartupError;
  };

  beforeAll(async () => {
    pki = createTestPki({ dir: join(dir, 'pki') });
    mariadb = await startSecureMariadb({ dir, pki });
    // Migrations as the migrator, over TLS.
    const migrator = createDataSource(mysqlSettingsFrom(loadConfig(MysqlConfig, mariadb.env)));
    await migrator.initialize();
    try {
      expect((await runPendingMigrations(migrator)).length).toBeGreaterThan(0);
    } finally {
      await migrator.destroy();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(open.filter((ds) => ds.isInitialized).map((ds) => ds.destroy()));
    await mariadb?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects every service as its own account, encrypted, with the server verified', async () => {
    for (const [user, service] of Object.entries(SERVICES)) {
      const ds = await startAs(service, mariadb.envFor(user as MysqlServiceUser));
      const [cipher] = (await ds.query(`SHOW SESSION STATUS LIKE 'Ssl_cipher'`)) as { Value: string }[];
      const [me] = (await ds.query('SELECT CURRENT_USER() AS account')) as { account: string }[];
      expect([service, me?.account, (cipher?.Value ?? '') !== '']).toEqual([service, `${user}@%`, true]);
    }
  }, 60_000);

  it("refuses a service's DDL on the server's side, and writes its account never does", async () => {
    const sender = await startAs('notification-sender', mariadb.envFor('ums_sender'));
    await expect(sender.query('CREATE TABLE sneaky (id INT PRIMARY KEY)')).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    await expect(sender.query('DROP TABLE messages')).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    await expect(sender.query('ALTER TABLE messages ADD COLUMN x INT')).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    const expander = await startAs('batch-expander', mariadb.envFor('ums_expander'));
    await expect(expander.query('DELETE FROM messages')).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    const ingest = await startAs('webhook-ingest', mariadb.envFor('ums_ingest'));
    await expect(ingest.query('SELECT COUNT(*) AS n FROM credentials')).resolves.toEqual([{ n: '0' }]);
    await expect(ingest.query("DELETE FROM credentials WHERE id = 'x'")).rejects.toMatchObject({
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
  }, 60_000);

  it('refuses a CA that did not sign the server, naming MYSQL_SSL_CA_FILE', async () => {
    const error = await refusal('notification-sender', {
      ...mariadb.envFor('ums_sender'),
      MYSQL_SSL_CA_FILE: pki.otherCa.certFile,
    });
    expect(error).toMatchObject({ code: 'MYSQL_TLS_UNTRUSTED', setting: 'MYSQL_SSL_CA_FILE' });
    expect(error.message).toContain('MYSQL_SSL_CA_FILE');
  }, 30_000);

  it('refuses a plain connection to the TLS-only server, naming MYSQL_SSL_MODE', async () => {
    const { MYSQL_SSL_CA_FILE: _ca, ...plain } = mariadb.envFor('ums_sender');
    const error = await refusal('notification-sender', { ...plain, MYSQL_SSL_MODE: 'DISABLED' });
    expect([error.code, error.setting, error.message]).toEqual([
      'MYSQL_TLS_REQUIRED',
      'MYSQL_SSL_MODE',
      expect.anything(),
    ]);
    expect(error.message).toContain('MYSQL_SSL_MODE');
  }, 30_000);

  it('refuses a wrong password, naming MYSQL_USER and MYSQL_PASSWORD and not the password', async () => {
    const error = await refusal('notification-sender', {
      ...mariadb.envFor('ums_sender'),
      MYSQL_PASSWORD: 'not-the-password',
    });
    expect(error).toMatchObject({ code: 'MYSQL_AUTH_FAILED', setting: 'MYSQL_PASSWORD' });
    expect(error.message).toMatch(/MYSQL_USER .*MYSQL_PASSWORD/);
    expect(error.message).not.toContain('not-the-password');
  }, 30_000);

  it('refuses a service whose account lacks one of its grants, naming the privilege', async () => {
    // The ingest's account (SELECT on credentials) standing in for the sender's.
    const error = await refusal('notification-sender', {
      ...mariadb.envFor('ums_ingest'),
    });
    expect(error).toMatchObject({ code: 'MYSQL_GRANT_MISSING', setting: 'MYSQL_USER' });
    expect(error.message).toContain('INSERT ON ums.*');
    expect(error.message).toContain("MYSQL_USER 'ums_ingest'");
  }, 30_000);

  it('connects an account created REQUIRE X509 with its client certificate, and names it without', async () => {
    const admin = await connectTestDatabase(mariadb.server.settings('ums'));
    await admin.query(`ALTER USER 'ums_dispatcher'@'%' REQUIRE X509`);
    try {
      const error = await refusal('webhook-dispatcher', mariadb.envFor('ums_dispatcher'));
      expect(error.code).toBe('MYSQL_AUTH_FAILED');
      expect(error.message).toContain('MYSQL_SSL_CERT_FILE and MYSQL_SSL_KEY_FILE');
      const ds = await startAs('webhook-dispatcher', {
        ...mariadb.envFor('ums_dispatcher'),
        MYSQL_SSL_CERT_FILE: pki.client.certFile,
        MYSQL_SSL_KEY_FILE: pki.client.keyFile,
      });
      const [version] = (await ds.query(`SHOW SESSION STATUS LIKE 'Ssl_version'`)) as { Value: string }[];
      expect(version?.Value).toMatch(/^TLS/);
    } finally {
      await admin.query(`ALTER USER 'ums_dispatcher'@'%' REQUIRE NONE`);
      await admin.end();
    }
  }, 30_000);

  it("tells the DDL an account holds beyond its service's grants (a service run as the migrator)", async () => {
    const asMigrator = await startAs('migrate', mariadb.env);
    const query = (sql: string, parameters: unknown[]): Promise<unknown> => asMigrator.query(sql, parameters);
    const sender = await checkServiceGrants(query, { user: 'ums_sender', database: 'ums' });
    expect(sender.missing).toEqual([]);
    expect([...sender.excess].sort()).toEqual(['ALTER', 'CREATE', 'DROP', 'INDEX', 'REFERENCES']);
    expect(await checkServiceGrants(query, { user: 'ums_migrator', database: 'ums' })).toEqual({
      missing: [],
      excess: [],
    });
  }, 30_000);

  it('stops a service at start-up at once, naming the setting, without retrying', async () => {
    // webhook-ingest, as production runs it; MySQL is what it connects to first.
    const entry = compiledEntry('apps/webhook-ingest/src/main.ts');
    const logFile = join(dir, 'ingest-wrong-ca.log');
    const ingest = new ManagedProcess({
      name: 'ingest-wrong-ca',
      command: entry.command,
      args: entry.args,
      env: {
        ...entry.env,
        ...serviceEnv('ums', 'secure-mysql'),
        ...mariadb.envFor('ums_ingest'),
        MYSQL_SSL_CA_FILE: pki.otherCa.certFile,
        HTTP_PORT: '0',
        MANAGEMENT_PORT: '0',
      },
      logFile,
    }).start();
    const started = Date.now();
    const code = await ingest.waitForExit();
    expect(code).toBe(1);
    // No 9 tries 3 s apart: a certificate does not fix itself.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(readFileSync(logFile, 'utf8')).toMatch(
      /MysqlStartupError: TLS handshake with MySQL at 127\.0\.0\.1:\d+ failed: .*MYSQL_SSL_CA_FILE/,
    );
  }, 60_000);
});
