import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startRedisCluster } from '../redis/redis-engines';
import type { SecureEngine } from '../secure-engine';
import { workspaceRoot } from '../workspace-root';

declare global {
  // Shared with redis-cluster-teardown (same process).
  var __UMS_TEST_REDIS_CLUSTER__: SecureEngine | undefined;
}

/** Where the `redis-cluster` project finds its cluster (redis-cluster-env.ts passes it on to its suites). */
export const CLUSTER_NODES_VAR = 'UMS_TEST_REDIS_CLUSTER_NODES';

/**
 * Global setup of the `redis-cluster` Jest project (it runs only when a suite of that project runs):
 * a three-master Redis Cluster on loopback, unless UMS_TEST_REDIS_CLUSTER_NODES names one already.
 */
export default async function redisClusterSetup(): Promise<void> {
  if ((process.env[CLUSTER_NODES_VAR] ?? '') !== '') return;
  const dir = join(workspaceRoot(), 'tmp', 'redis-cluster', `test-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  const cluster = await startRedisCluster({ dir, masters: 3 });
  process.env[CLUSTER_NODES_VAR] = cluster.env['REDIS_CLUSTER_NODES'];
  globalThis.__UMS_TEST_REDIS_CLUSTER__ = cluster;
  process.stdout.write(
    `\nRedis Cluster ${cluster.env['REDIS_CLUSTER_NODES'] ?? ''} ready in ${Date.now() - started} ms\n`,
  );
}
