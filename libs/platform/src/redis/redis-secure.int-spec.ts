import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestPki,
  type SecureEngine,
  startRedisServer,
  startSecureRedis,
  type TestPki,
} from '@ums/testing';
import { redisStartupRefusal, startRedisApp } from './fixtures/redis-app.fixture';

jest.setTimeout(90_000);

/**
 * Redis with TLS only and an ACL user (the default user disabled), started by the test on loopback:
 * the platform connects with the REDIS_* settings, and each misconfiguration is refused at start-up
 * with an error naming the setting.
 */
describe('Redis with an ACL user and TLS', () => {
  let dir: string;
  let pki: TestPki;
  let secure: SecureEngine;
  let mtls: SecureEngine;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ums-redis-secure-'));
    pki = createTestPki({ dir: join(dir, 'pki') });
    [secure, mtls] = await Promise.all([
      startSecureRedis({ dir: join(dir, 'tls'), pki }),
      startSecureRedis({ dir: join(dir, 'mtls'), pki, requireClientCert: true }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([secure?.stop(), mtls?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects over TLS as the ACL user, and readiness says ok', async () => {
    const app = await startRedisApp({ ...secure.env });
    try {
      await app.redis.set('secure:probe', 'x', 'PX', 10_000);
      expect(await app.redis.get('secure:probe')).toBe('x');
      expect((await app.health.evaluate()).checks['redis']).toEqual({ ok: true });
    } finally {
      await app.close();
    }
  });

  it('connects with a client certificate where the server requires one', async () => {
    const app = await startRedisApp({ ...mtls.env });
    try {
      expect(await app.redis.ping()).toBe('PONG');
    } finally {
      await app.close();
    }
  });

  it('refuses a wrong password at start-up, naming REDIS_PASSWORD (and not its value)', async () => {
    const error = await redisStartupRefusal({ ...secure.env, REDIS_PASSWORD: 'not-the-password' });
    expect(error).toMatchObject({ code: 'REDIS_AUTH_FAILED' });
    expect(String((error as Error).message)).toContain('REDIS_PASSWORD');
    expect(String((error as Error).message)).not.toContain('not-the-password');
  });

  it('refuses a server certificate the CA does not sign, naming REDIS_TLS_CA_FILE', async () => {
    const error = await redisStartupRefusal({ ...secure.env, REDIS_TLS_CA_FILE: pki.otherCa.certFile });
    expect(error).toMatchObject({ code: 'REDIS_TLS_UNTRUSTED' });
    expect(String((error as Error).message)).toContain('REDIS_TLS_CA_FILE');
  });

  it('refuses a plain connection to the TLS-only port, naming REDIS_URL', async () => {
    const plain = secure.env['REDIS_URL']?.replace('rediss://', 'redis://') ?? '';
    const { REDIS_TLS_CA_FILE: _ca, ...rest } = secure.env;
    const error = await redisStartupRefusal({ ...rest, REDIS_URL: plain });
    expect(error).toMatchObject({ code: 'REDIS_PLAIN_TO_TLS' });
    expect(String((error as Error).message)).toContain('REDIS_URL');
  });

  it('refuses a missing client certificate where the server requires one, naming REDIS_TLS_CERT_FILE', async () => {
    const { REDIS_TLS_CERT_FILE: _cert, REDIS_TLS_KEY_FILE: _key, ...rest } = mtls.env;
    const error = await redisStartupRefusal(rest);
    expect(String((error as Error).message)).toContain('REDIS_TLS_CERT_FILE');
  });

  it('refuses TLS to a port that does not speak it, naming REDIS_URL', async () => {
    const plain = await startRedisServer({ dir: join(dir, 'plain') });
    try {
      const error = await redisStartupRefusal({
        REDIS_URL: plain.url.replace('redis://', 'rediss://'),
        REDIS_TLS_CA_FILE: pki.ca.certFile,
      });
      expect(error).toMatchObject({ code: 'REDIS_TLS_NOT_SPOKEN' });
      expect(String((error as Error).message)).toContain('REDIS_URL');
    } finally {
      await plain.stop();
    }
  });

  it('works with a three-master cluster that speaks TLS only and lets in the ACL user only', async () => {
    const cluster = await startSecureRedis({ dir: join(dir, 'cluster'), pki, mode: 'cluster' });
    try {
      const app = await startRedisApp({ ...cluster.env });
      try {
        // Keys of one tag share a slot: one script may touch them all, whichever master holds them.
        const script = "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])";
        for (const tenant of ['a', 'b', 'c', 'd'])
          expect(await app.redis.eval(script, 2, `s:{${tenant}}:c`, `s:{${tenant}}:t`, tenant)).toBe(1);
        expect((await app.health.evaluate()).checks['redis']).toEqual({ ok: true });
      } finally {
        await app.close();
      }
      const error = await redisStartupRefusal({ ...cluster.env, REDIS_PASSWORD: 'wrong' });
      expect(error).toMatchObject({ code: 'REDIS_AUTH_FAILED' });
    } finally {
      await cluster.stop();
    }
  });

  it('refuses an unreadable CA file and TLS files with a plain URL in config validation', async () => {
    const missing = await redisStartupRefusal({
      ...secure.env,
      REDIS_TLS_CA_FILE: join(dir, 'no-such-ca.pem'),
    });
    expect(String((missing as Error).message)).toMatch(/REDIS_TLS_CA_FILE.*cannot be read/);
    const plainUrl = await redisStartupRefusal({
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      REDIS_TLS_CA_FILE: pki.ca.certFile,
    });
    expect(String((plainUrl as Error).message)).toMatch(/REDIS_TLS_CA_FILE.*rediss:\/\//);
  });
});
