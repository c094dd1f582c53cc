// Setup file of the `redis-cluster` Jest project: points this suite's testRedis* helpers at the
// cluster. Jest gives each suite its own copy of process.env, so suites of other projects that the
// same worker runs still use the single Redis.
process.env['UMS_TEST_REDIS_CLUSTER'] = process.env['UMS_TEST_REDIS_CLUSTER_NODES'] ?? '';
if (process.env['UMS_TEST_REDIS_CLUSTER'] === '')
  throw new Error('redis-cluster project: no cluster started');
