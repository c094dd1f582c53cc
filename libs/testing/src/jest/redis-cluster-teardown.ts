/** Stops the Redis Cluster that redis-cluster-setup started (none when the run brought its own). */
export default async function redisClusterTeardown(): Promise<void> {
  await globalThis.__UMS_TEST_REDIS_CLUSTER__?.stop();
  globalThis.__UMS_TEST_REDIS_CLUSTER__ = undefined;
}
