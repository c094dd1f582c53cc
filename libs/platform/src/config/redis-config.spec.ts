import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisConfig } from './common.config';
import { loadConfig } from './config-loader';

describe('RedisConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-redis-config-'));
  // The checks look for the PEM block only; what it holds is the TLS handshake's to judge.
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const key = join(dir, 'client.key');
  writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n');

  const refused = (env: Record<string, string>): string => {
    try {
      loadConfig(RedisConfig, env);
    } catch (error: unknown) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('defaults to the local standalone Redis, and reads the secured settings', () => {
    expect(loadConfig(RedisConfig, {})).toMatchObject({
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      REDIS_MODE: 'standalone',
    });
    const secured = loadConfig(RedisConfig, {
      REDIS_URL: 'rediss://cache.example:6380/0',
      REDIS_USERNAME: 'ums',
      REDIS_PASSWORD: 'p',
      REDIS_TLS_CA_FILE: ca,
      REDIS_TLS_CERT_FILE: ca,
      REDIS_TLS_KEY_FILE: key,
    });
    expect(secured).toMatchObject({ REDIS_USERNAME: 'ums', REDIS_TLS_CA_FILE: ca });
    // Empty variables count as unset.
    expect(
      loadConfig(RedisConfig, { REDIS_PASSWORD: '', REDIS_TLS_CA_FILE: '' }).REDIS_PASSWORD,
    ).toBeUndefined();
  });

  it('refuses TLS files without a rediss:// URL, a certificate without its key, unreadable or non-PEM files', () => {
    expect(refused({ REDIS_TLS_CA_FILE: ca })).toMatch(
      /REDIS_TLS_CA_FILE is set but REDIS_URL is not rediss:\/\//,
    );
    expect(refused({ REDIS_URL: 'rediss://h:1', REDIS_TLS_CERT_FILE: ca })).toMatch(
      /REDIS_TLS_CERT_FILE needs REDIS_TLS_KEY_FILE/,
    );
    expect(refused({ REDIS_URL: 'rediss://h:1', REDIS_TLS_KEY_FILE: ca })).toMatch(
      /REDIS_TLS_KEY_FILE needs REDIS_TLS_CERT_FILE/,
    );
    expect(refused({ REDIS_URL: 'rediss://h:1', REDIS_TLS_CA_FILE: join(dir, 'missing.pem') })).toMatch(
      /REDIS_TLS_CA_FILE cannot be read/,
    );
    expect(refused({ REDIS_URL: 'rediss://h:1', REDIS_TLS_CERT_FILE: key, REDIS_TLS_KEY_FILE: ca })).toMatch(
      /REDIS_TLS_CERT_FILE holds no PEM certificate[^]*REDIS_TLS_KEY_FILE holds no PEM private key/,
    );
  });

  it('asks for the nodes, sentinels and master name of its mode, and refuses them in another', () => {
    expect(refused({ REDIS_MODE: 'cluster' })).toMatch(/REDIS_CLUSTER_NODES must list at least one/);
    expect(refused({ REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'a:1,b' })).toMatch(
      /REDIS_CLUSTER_NODES entries must be host:port/,
    );
    expect(
      refused({ REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'a:1', REDIS_URL: 'redis://a:1/3' }),
    ).toMatch(/REDIS_URL a Redis Cluster has database 0 only/);
    expect(refused({ REDIS_MODE: 'sentinel', REDIS_SENTINELS: 's:26379' })).toMatch(
      /REDIS_SENTINEL_MASTER is required/,
    );
    expect(refused({ REDIS_MODE: 'sentinel', REDIS_SENTINEL_MASTER: 'm' })).toMatch(
      /REDIS_SENTINELS must list/,
    );
    expect(refused({ REDIS_SENTINEL_PASSWORD: 'x' })).toMatch(
      /REDIS_SENTINEL_PASSWORD is set but REDIS_MODE is not sentinel/,
    );
    expect(refused({ REDIS_MODE: 'replicated' })).toMatch(/REDIS_MODE/);
    expect(
      loadConfig(RedisConfig, {
        REDIS_MODE: 'sentinel',
        REDIS_SENTINELS: 's1:26379, s2:26379',
        REDIS_SENTINEL_MASTER: 'm',
      }).REDIS_SENTINELS,
    ).toEqual(['s1:26379', 's2:26379']);
  });

  it('never puts a password in its messages', () => {
    expect(refused({ REDIS_URL: 'redis://u:secret-pw@h:1/x' })).not.toContain('secret-pw');
  });
});
