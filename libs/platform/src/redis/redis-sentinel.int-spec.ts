import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisSentinel, waitUntil } from '@ums/testing';
import { redisStartupRefusal, startRedisApp } from './fixtures/redis-app.fixture';

jest.setTimeout(90_000);

/**
 * Sentinel mode (ioredis asks the sentinels for the master): a master with a replica and one
 * sentinel (`redis-server --sentinel`) on loopback, each with a password.
 */
describe('Redis through Sentinel', () => {
  let dir: string;
  let engine: Awaited<ReturnType<typeof startRedisSentinel>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ums-redis-sentinel-'));
    engine = await startRedisSentinel({ dir, replica: true });
  });

  afterAll(async () => {
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects to the master the sentinels name, and follows it through a failover', async () => {
    const app = await startRedisApp({ ...engine.env });
    try {
      await app.redis.set('sentinel:probe', 'before', 'PX', 60_000);
      expect(await app.redis.get('sentinel:probe')).toBe('before');
      const sentinel = new Redis({
        port: engine.sentinelPort,
        password: engine.env['REDIS_SENTINEL_PASSWORD'],
      });
      try {
        const [, before] = (await sentinel.call(
          'SENTINEL',
          'get-master-addr-by-name',
          engine.masterName,
        )) as string[];
        await sentinel.call('SENTINEL', 'failover', engine.masterName);
        await waitUntil('the sentinel to name the replica as master', async () => {
          const [, now] = (await sentinel.call(
            'SENTINEL',
            'get-master-addr-by-name',
            engine.masterName,
          )) as string[];
          return now !== before;
        });
      } finally {
        sentinel.disconnect();
      }
      // The old master turns replica (READONLY): ioredis reconnects to the new one.
      await waitUntil(
        'a write on the new master',
        async () => (await app.redis.set('sentinel:probe', 'after').catch(() => null)) === 'OK',
      );
      expect(await app.redis.get('sentinel:probe')).toBe('after');
    } finally {
      await app.close();
    }
  });

  it('refuses a master name the sentinels do not know, naming REDIS_SENTINEL_MASTER', async () => {
    const error = await redisStartupRefusal({ ...engine.env, REDIS_SENTINEL_MASTER: 'no-such-master' });
    expect(String((error as Error).message)).toContain('REDIS_SENTINEL_MASTER');
  });

  it('refuses a wrong sentinel password, naming it', async () => {
    const error = await redisStartupRefusal({ ...engine.env, REDIS_SENTINEL_PASSWORD: 'wrong' });
    expect(String((error as Error).message)).toMatch(/REDIS_SENTINEL/);
  });
});
