import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type SecureEngine, startRedisCluster, testRedisUrl } from '@ums/testing';
import { redisStartupRefusal, startRedisApp } from './fixtures/redis-app.fixture';
import { RedisConfig } from '../config/common.config';
import { loadConfig } from '../config/config-loader';
import { hashSlot, hashTag } from './key-slot';
import { createRedisClient, isRedisCluster } from './redis-client';
import { describeRedisFailure } from './redis-failure';

jest.setTimeout(90_000);

/** A three-master Redis Cluster of the test's own (startRedisCluster), reached with REDIS_MODE=cluster. */
describe('Redis Cluster', () => {
  let dir: string;
  let cluster: SecureEngine & { nodes: string[] };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ums-redis-cluster-'));
    cluster = await startRedisCluster({ dir, masters: 3 });
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('places keys where the cluster does (CLUSTER KEYSLOT), hash tags included', async () => {
    const node = new Redis(`redis://${cluster.nodes[0] ?? ''}`);
    try {
      for (const key of [
        'foo',
        'bar',
        '123456789',
        'ums:rl:{tenant-1}c:cred',
        `p:${hashTag('t}x')}t`,
        'a{}b',
      ])
        expect(await node.cluster('KEYSLOT', key)).toBe(hashSlot(key));
    } finally {
      node.disconnect();
    }
  });

  it('runs a script over keys of one tag on any master, and names a CROSSSLOT error', async () => {
    const app = await startRedisApp({ ...cluster.env });
    try {
      const script =
        "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return redis.call('GET', KEYS[1])";
      const masters = new Set<string>();
      for (const tenant of ['a', 'b', 'c', 'd', 'e', 'f']) {
        const keys = [`t:${hashTag(tenant)}c`, `t:${hashTag(tenant)}t`];
        expect(await app.redis.eval(script, 2, ...keys, tenant)).toBe(tenant);
        masters.add(String((hashSlot(keys[0] as string) * 3) >> 14));
      }
      expect(masters.size).toBeGreaterThan(1);
      const crossSlot = await app.redis.eval(script, 2, 'x:a', 'x:b', 'v').catch((error: unknown) => error);
      expect(describeRedisFailure(crossSlot)).toMatchObject({ code: 'REDIS_CROSSSLOT' });
    } finally {
      await app.close();
    }
  });

  it('refuses REDIS_MODE=standalone against a cluster node, and cluster mode against a single server', async () => {
    const standalone = await redisStartupRefusal({ REDIS_URL: cluster.env['REDIS_URL'] ?? '' });
    expect(standalone).toMatchObject({ code: 'REDIS_MODE_MISMATCH' });
    expect(String((standalone as Error).message)).toContain('REDIS_MODE');
    const single = new URL(testRedisUrl());
    const clusterOnSingle = await redisStartupRefusal({
      REDIS_URL: testRedisUrl(),
      REDIS_MODE: 'cluster',
      REDIS_CLUSTER_NODES: `${single.hostname}:${single.port || '6379'}`,
    });
    expect(String((clusterOnSingle as Error).message)).toContain('REDIS_MODE');
  });

  it('validates the cluster settings, naming the variable', () => {
    expect(() => loadConfig(RedisConfig, { REDIS_MODE: 'cluster' })).toThrow(/REDIS_CLUSTER_NODES must list/);
    expect(() =>
      loadConfig(RedisConfig, {
        REDIS_MODE: 'cluster',
        REDIS_CLUSTER_NODES: '127.0.0.1:7000',
        REDIS_URL: 'redis://h:1/2',
      }),
    ).toThrow(/REDIS_URL a Redis Cluster has database 0 only/);
    expect(() => loadConfig(RedisConfig, { REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toThrow(
      /REDIS_CLUSTER_NODES is set but REDIS_MODE is not cluster/,
    );
    const client = createRedisClient({
      config: loadConfig(RedisConfig, { ...cluster.env }),
      overrides: { lazyConnect: true },
    });
    expect(isRedisCluster(client)).toBe(true);
    client.disconnect();
  });
});
