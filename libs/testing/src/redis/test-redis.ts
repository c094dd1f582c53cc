import { Cluster, Redis, type RedisOptions } from 'ioredis';

/**
 * Set to a Redis Cluster's nodes (host:port,...) to run a suite against the cluster: the
 * `redis-cluster` Jest project sets it for its suites (libs/testing/src/jest/redis-cluster-env.ts),
 * from the cluster its global setup starts (or from UMS_TEST_REDIS_CLUSTER_NODES, a cluster of yours).
 */
export const TEST_REDIS_CLUSTER_VAR = 'UMS_TEST_REDIS_CLUSTER';

/** The cluster nodes this suite runs against, or none (a single Redis). */
export function testRedisClusterNodes(): string[] {
  return (process.env[TEST_REDIS_CLUSTER_VAR] ?? '')
    .split(',')
    .map((node) => node.trim())
    .filter((node) => node !== '');
}

/** The Redis that tests use: REDIS_URL, or the machine's local server (a cluster's first node). */
export function testRedisUrl(): string {
  const [first] = testRedisClusterNodes();
  if (first !== undefined) return `redis://${first}/0`;
  return process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
}

/** The REDIS_* settings a service or module of the suite needs (cluster mode on the cluster). */
export function testRedisEnv(): Record<string, string> {
  const nodes = testRedisClusterNodes();
  if (nodes.length === 0) return { REDIS_URL: testRedisUrl() };
  return { REDIS_URL: testRedisUrl(), REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: nodes.join(',') };
}

/** A connection to the suite's Redis: a Cluster client on the cluster, else a plain one. */
export function testRedisClient(options: RedisOptions = {}): Redis | Cluster {
  const nodes = testRedisClusterNodes();
  if (nodes.length === 0) return new Redis(testRedisUrl(), options);
  const { enableAutoPipelining, ...redisOptions } = options;
  return new Cluster(
    nodes.map((node) => ({
      host: node.slice(0, node.lastIndexOf(':')),
      port: Number(node.slice(node.lastIndexOf(':') + 1)),
    })),
    { redisOptions, enableAutoPipelining: enableAutoPipelining ?? false, scaleReads: 'master' },
  );
}

/** Keys matching a pattern, from every master of a cluster (KEYS on one node sees only its slots). */
export async function testRedisKeys(client: Redis | Cluster, pattern: string): Promise<string[]> {
  const servers = client instanceof Cluster ? client.nodes('master') : [client];
  const keys = await Promise.all(servers.map((server) => server.keys(pattern)));
  return keys.flat();
}

/** Deletes the keys matching a pattern (one DEL per key: on a cluster they live in many slots). */
export async function deleteTestRedisKeys(client: Redis | Cluster, pattern: string): Promise<void> {
  const keys = await testRedisKeys(client, pattern);
  await Promise.all(keys.map((key) => client.del(key)));
}
