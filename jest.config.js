// @ts-check
const { readFileSync } = require('node:fs');

// SWC compiles tests with decorator metadata (Nest DI needs it); paths mirror tsconfig.base.json.
const swcOptions = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));
const transform = { '^.+\\.ts$': ['@swc/jest', { ...swcOptions, swcrc: false }] };
const moduleNameMapper = { '^@ums/(contracts|domain|platform|testing)$': '<rootDir>/libs/$1/src/index.ts' };
const testPathIgnorePatterns = ['/node_modules/', '/dist/', '/.cache/'];
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  testPathIgnorePatterns,
};

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  // Two cores: integration tests share one broker and one database server.
  maxWorkers: 2,
  globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/{apps,libs,tools}/**/*.int-spec.ts',
        '<rootDir>/{apps,libs,tools}/**/*.e2e-spec.ts',
      ],
      slowTestThreshold: 30,
    },
  ],
};
