// @ts-check
const { readFileSync } = require('node:fs');

// SWC compiles tests as it compiles dist/: with decorator metadata (Nest DI needs it), and `@ums/<lib>`
// imports rewritten to relative paths (jsc.paths, as in tsconfig.base.json). .swcrc's baseUrl is relative
// to the file; given as options, SWC needs it absolute.
const swcOptions = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));
const transform = {
  '^.+\\.ts$': ['@swc/jest', { ...swcOptions, jsc: { ...swcOptions.jsc, baseUrl: __dirname }, swcrc: false }],
  // jose and eventsource-parser ship only ES modules: Node 24 requires them as they are, Jest's module
  // loader needs them compiled.
  '/node_modules/(jose|eventsource-parser)/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
};
// What SWC leaves as written (a string in jest.mock or require, not an import) still resolves.
const moduleNameMapper = {
  '^@ums/(client|contracts|domain|platform|testing)$': '<rootDir>/libs/$1/src/index.ts',
};
// `npm test` runs the suites that measure time or load both cores in a phase of their own, one at a time,
// after the rest (UMS_TEST_PHASE=solo, then =main before it): the chaos test loads both cores for minutes,
// and the rate and latency suites beside other suites measured a starved machine (p99 308 -> 544 ms).
const phase = process.env.UMS_TEST_PHASE;
/** An ignore pattern matching exactly one suite's path. */
const pathPattern = (/** @type {string} */ path) => `/${path.replace(/\./g, '\\.')}$`;
const SOLO = [
  'tools/chaos/pipeline-chaos.e2e-spec.ts',
  'apps/notification-sender/src/sending/sending-rates.e2e-spec.ts',
  // Grants counted per second and AIMD throughput at 1,000/s in one process: starved beside the
  // end-to-end suites, the doubled provider's second settled at 520/s instead of 800 or more.
  'apps/notification-sender/src/rate-limit/rate-limit.int-spec.ts',
  'apps/webhook-dispatcher/src/deliveries/delivery-isolation.e2e-spec.ts',
];
// Suites that run a second time on a three-master Redis Cluster (the `redis-cluster` project starts
// it; their testRedis* helpers point at it): the rate limiter, fairness, tenant caps, AIMD and the
// webhook failure window must work alike on a single Redis and on a cluster.
const REDIS_CLUSTER_SUITES = [
  'apps/notification-sender/src/rate-limit/rate-limit.int-spec.ts',
  'apps/notification-sender/src/rate-limit/rate-limit-reseed.int-spec.ts',
  'apps/notification-sender/src/rate-limit/campaign-priority.int-spec.ts',
  'apps/webhook-dispatcher/src/subscribers/failure-window.int-spec.ts',
  // Three sender processes on one credential: in the solo phase (it is in SOLO).
  'apps/notification-sender/src/sending/sending-rates.e2e-spec.ts',
];
// Run only on the cluster, in the solo phase where each costs minutes: the limiter's Lua and AIMD are the
// same on both, rate-limit-reseed and every suite with sender processes (the chaos test among them) run
// them on a single Redis already, and the cluster adds the hash-tagged keys and per-slot pipelines.
const REDIS_CLUSTER_ONLY = [
  'apps/notification-sender/src/sending/sending-rates.e2e-spec.ts',
  'apps/notification-sender/src/rate-limit/rate-limit.int-spec.ts',
];
const transformIgnorePatterns = ['/node_modules/(?!(jose|eventsource-parser)/)'];
const testPathIgnorePatterns = [
  '/node_modules/',
  '/dist/',
  '/.cache/',
  ...(phase === 'main' ? SOLO.map(pathPattern) : []),
];
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  testPathIgnorePatterns,
};

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  // Three workers on two cores: most suites wait on their processes, the broker, the database and timers
  // more than they compute, so a third keeps the cores busy. The solo phase runs one at a time.
  maxWorkers: 3,
  testSequencer: '<rootDir>/jest.sequencer.js',
  globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
  projects: [
    ...(phase === 'solo'
      ? []
      : [{ ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] }]),
    {
      ...common,
      displayName: 'integration',
      testPathIgnorePatterns: [...testPathIgnorePatterns, ...REDIS_CLUSTER_ONLY.map(pathPattern)],
      testMatch:
        phase === 'solo'
          ? SOLO.map((path) => `<rootDir>/${path}`)
          : ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts', '<rootDir>/{apps,libs,tools}/**/*.e2e-spec.ts'],
      slowTestThreshold: 30,
    },
    {
      ...common,
      displayName: 'redis-cluster',
      testMatch: REDIS_CLUSTER_SUITES.filter((path) => phase !== 'solo' || SOLO.includes(path)).map(
        (path) => `<rootDir>/${path}`,
      ),
      globalSetup: '<rootDir>/libs/testing/src/jest/redis-cluster-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/jest/redis-cluster-teardown.ts',
      setupFiles: ['<rootDir>/libs/testing/src/jest/redis-cluster-env.ts'],
      slowTestThreshold: 30,
    },
  ],
};
