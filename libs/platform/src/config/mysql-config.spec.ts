import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mysql2SslOptions } from '../mysql/mysql-connection-settings';
import { mysqlReadSettingsFrom, mysqlSettingsFrom } from '../mysql/mysql-settings.mapper';
import { MysqlConfig } from './common.config';
import { ConfigValidationError, loadConfig } from './config-loader';

describe('MysqlConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-mysql-config-'));
  const ca = join(dir, 'ca.pem');
  const cert = join(dir, 'client.pem');
  const key = join(dir, 'client.key');
  const notPem = join(dir, 'notes.txt');
  beforeAll(() => {
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n');
    writeFileSync(notPem, 'hello\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const user = { MYSQL_USER: 'ums_sender' };
  const refused = (env: Record<string, string>): string[] => {
    try {
      loadConfig(MysqlConfig, env);
    } catch (error: unknown) {
      if (error instanceof ConfigValidationError) return error.issues.map((i) => `${i.field}: ${i.reason}`);
      throw error;
    }
    return [];
  };

  it('has no default account: each service names its own', () => {
    expect(refused({})).toEqual(["MYSQL_USER: MYSQL_USER must be set (the service's own account)"]);
    expect(loadConfig(MysqlConfig, user)).toMatchObject({
      MYSQL_USER: 'ums_sender',
      MYSQL_SSL_MODE: 'DISABLED',
    });
  });

  it('turns VERIFY_IDENTITY with a CA and a client certificate into verifying mysql2 options', () => {
    const config = loadConfig(MysqlConfig, {
      ...user,
      MYSQL_SSL_MODE: 'VERIFY_IDENTITY',
      MYSQL_SSL_CA_FILE: ca,
      MYSQL_SSL_CERT_FILE: cert,
      MYSQL_SSL_KEY_FILE: key,
    });
    const settings = mysqlSettingsFrom(config);
    expect(mysql2SslOptions(settings.tls)).toEqual({
      ca: expect.stringContaining('MIIB'),
      cert: expect.stringContaining('MIIC'),
      key: expect.stringContaining('MIIE'),
      rejectUnauthorized: true,
      verifyIdentity: true,
    });
    expect(mysql2SslOptions(mysqlSettingsFrom(loadConfig(MysqlConfig, user)).tls)).toBeUndefined();
  });

  it('verifies the chain but not the name with VERIFY_CA, and nothing with REQUIRED', () => {
    const verifyCa = loadConfig(MysqlConfig, { ...user, MYSQL_SSL_MODE: 'VERIFY_CA', MYSQL_SSL_CA_FILE: ca });
    expect(mysql2SslOptions(mysqlSettingsFrom(verifyCa).tls)).toMatchObject({
      rejectUnauthorized: true,
      verifyIdentity: false,
    });
    const required = loadConfig(MysqlConfig, { ...user, MYSQL_SSL_MODE: 'REQUIRED' });
    expect(mysql2SslOptions(mysqlSettingsFrom(required).tls)).toEqual({
      rejectUnauthorized: false,
      verifyIdentity: false,
    });
  });

  it('refuses each bad or inconsistent TLS setting, naming the variable', () => {
    expect(refused({ ...user, MYSQL_SSL_MODE: 'ON' })).toEqual([expect.stringMatching(/^MYSQL_SSL_MODE: /)]);
    expect(refused({ ...user, MYSQL_SSL_MODE: 'VERIFY_CA' })).toEqual([
      'MYSQL_SSL_MODE: MYSQL_SSL_MODE VERIFY_CA needs MYSQL_SSL_CA_FILE (the CA that signed the server)',
    ]);
    expect(
      refused({ ...user, MYSQL_SSL_MODE: 'VERIFY_CA', MYSQL_SSL_CA_FILE: join(dir, 'missing.pem') }),
    ).toEqual([expect.stringMatching(/^MYSQL_SSL_CA_FILE: MYSQL_SSL_CA_FILE cannot be read \(ENOENT\)/)]);
    expect(refused({ ...user, MYSQL_SSL_MODE: 'VERIFY_CA', MYSQL_SSL_CA_FILE: notPem })).toEqual([
      expect.stringMatching(/^MYSQL_SSL_CA_FILE: .*holds no PEM certificate/),
    ]);
    expect(refused({ ...user, MYSQL_SSL_MODE: 'REQUIRED', MYSQL_SSL_CERT_FILE: cert })).toEqual([
      'MYSQL_SSL_CERT_FILE: MYSQL_SSL_CERT_FILE is set but MYSQL_SSL_KEY_FILE is not',
    ]);
    expect(
      refused({ ...user, MYSQL_SSL_MODE: 'REQUIRED', MYSQL_SSL_CERT_FILE: cert, MYSQL_SSL_KEY_FILE: ca }),
    ).toEqual([expect.stringMatching(/^MYSQL_SSL_KEY_FILE: .*holds no PEM private key/)]);
    expect(refused({ ...user, MYSQL_SSL_CA_FILE: ca })).toEqual([
      'MYSQL_SSL_CA_FILE: MYSQL_SSL_CA_FILE is set but MYSQL_SSL_MODE is DISABLED',
    ]);
  });

  it('takes an optional read endpoint on the primary port unless told otherwise', () => {
    expect(mysqlReadSettingsFrom(loadConfig(MysqlConfig, user))).toBeUndefined();
    const read = mysqlReadSettingsFrom(
      loadConfig(MysqlConfig, {
        ...user,
        MYSQL_PORT: '3307',
        MYSQL_READ_HOST: 'reader.db',
        MYSQL_READ_PORT: '',
      }),
    );
    expect(read).toMatchObject({ host: 'reader.db', port: 3307, user: 'ums_sender' });
    expect(refused({ ...user, MYSQL_READ_PORT: '3306' })).toEqual([
      'MYSQL_READ_PORT: MYSQL_READ_PORT is set but MYSQL_READ_HOST is not',
    ]);
  });
});
