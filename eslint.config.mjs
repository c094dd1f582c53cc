// Type-aware lint for the whole workspace. The module-boundary rule is what keeps the
// architecture real: apps use libs only, domain and contracts stay free of I/O frameworks.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Frameworks and drivers that only platform code (and apps through it) may touch.
const ioFrameworks = [
  '@nestjs/*',
  'kafkajs',
  'typeorm',
  '@nestjs/typeorm',
  'mysql2',
  'mysql2/*',
  'ioredis',
  'prom-client',
  'pino',
  'pino-http',
  'nestjs-pino',
  'fastify',
  '@fastify/*',
  'undici',
];

/**
 * Who may import whom, by Nx project tag (no wildcards). Test files additionally let platform use the
 * shared test helpers; apps may name them too, and a separate rule keeps them out of app production code.
 */
function boundaries({ testsMayUseTesting }) {
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allowCircularSelfDependency: false,
      banTransitiveDependencies: false,
      allow: [],
      depConstraints: [
        {
          sourceTag: 'type:app',
          onlyDependOnLibsWithTags: [
            'type:contracts',
            'type:domain',
            'type:platform',
            'type:testing',
            'type:client',
          ],
        },
        {
          sourceTag: 'type:platform',
          onlyDependOnLibsWithTags: [
            'type:contracts',
            'type:domain',
            ...(testsMayUseTesting ? ['type:testing'] : []),
          ],
        },
        { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain'] },
        {
          sourceTag: 'type:domain',
          onlyDependOnLibsWithTags: ['type:contracts'],
          bannedExternalImports: ioFrameworks,
        },
        { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [], bannedExternalImports: ioFrameworks },
        // The typed HTTP client: the documents' types and fetch, nothing of the services.
        {
          sourceTag: 'type:client',
          onlyDependOnLibsWithTags: ['type:contracts', ...(testsMayUseTesting ? ['type:testing'] : [])],
          bannedExternalImports: ioFrameworks,
        },
        // The operator CLI talks HTTP only, through the typed client. Its end-to-end test sets up a
        // database, topics and the services with platform and the test helpers.
        testsMayUseTesting
          ? {
              sourceTag: 'type:cli',
              onlyDependOnLibsWithTags: ['type:client', 'type:contracts', 'type:platform', 'type:testing'],
            }
          : {
              sourceTag: 'type:cli',
              onlyDependOnLibsWithTags: ['type:client', 'type:contracts'],
              bannedExternalImports: ioFrameworks,
            },
        // The operator console serves the browser app and passes its calls on: the error codes and the
        // platform's service frame, nothing of the domain, the typed client or another app.
        {
          sourceTag: 'scope:operator-console',
          onlyDependOnLibsWithTags: [
            'type:contracts',
            'type:platform',
            ...(testsMayUseTesting ? ['type:testing'] : []),
          ],
        },
        {
          sourceTag: 'type:tool',
          onlyDependOnLibsWithTags: [
            'type:client',
            'type:contracts',
            'type:domain',
            'type:platform',
            'type:testing',
          ],
        },
      ],
    },
  ];
}

export default [
  {
    ignores: [
      '**/node_modules/**',
      'dist/**',
      '.cache/**',
      '.nx/**',
      'coverage/**',
      'tmp/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through the validated config classes (libs/platform/src/config).',
        },
      ],
      '@nx/enforce-module-boundaries': boundaries({ testsMayUseTesting: false }),
    },
  },
  {
    // Tests (and only tests) may use the shared test helpers from any project.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries({ testsMayUseTesting: true }),
    },
  },
  {
    // Production code of apps must not pull in test helpers, nor (but the CLI) the typed HTTP client.
    files: ['apps/**/*.ts', 'apps/**/*.tsx'],
    ignores: ['apps/**/*.spec.ts', 'apps/**/*.int-spec.ts', 'apps/**/*.e2e-spec.ts', 'apps/**/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@ums/testing', message: 'Test helpers are for tests only.' },
            { name: '@ums/client', message: 'The typed HTTP client is for the CLI, tools and tests.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/ums-cli/**/*.ts'],
    ignores: ['apps/**/*.spec.ts', 'apps/**/*.int-spec.ts', 'apps/**/*.e2e-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@ums/testing', message: 'Test helpers are for tests only.' }] },
      ],
    },
  },
  {
    // Production code stays readable: short functions, options objects for classes built by hand,
    // and providers split before they inject more than eight dependencies. Migrations are history
    // (never edited once landed); tests and their fixtures are free to be long.
    files: ['apps/**/*.ts', 'apps/**/*.tsx', 'libs/**/*.ts'],
    ignores: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      '**/test/**',
      '**/fixtures/**',
      'libs/testing/**',
      'libs/platform/src/mysql/migrations/**',
    ],
    rules: {
      'max-lines-per-function': ['error', { max: 80, IIFEs: true }],
      'no-restricted-syntax': [
        'error',
        {
          selector: `ClassDeclaration:not(:has(Decorator)) > ClassBody > MethodDefinition[kind='constructor'][value.params.length>5]`,
          message: 'A class built by hand takes an options object, not more than 5 positional parameters.',
        },
        {
          selector: `ClassDeclaration:has(Decorator) > ClassBody > MethodDefinition[kind='constructor'][value.params.length>8]`,
          message: 'A provider that injects more than 8 dependencies is split by responsibility.',
        },
      ],
    },
  },
  {
    // The operator console's browser code runs in the page: the contracts' types, the browser's APIs and
    // its bundled packages, nothing of Node, the services' frameworks or the other libs.
    files: ['apps/operator-console/web/src/**/*.ts', 'apps/operator-console/web/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@ums/testing', message: 'Test helpers are for tests only.' },
            { name: '@ums/client', message: 'The browser calls the APIs through the console (/api/...).' },
            { name: '@ums/platform', message: 'Service code does not run in the browser.' },
            { name: '@ums/domain', message: 'Service code does not run in the browser.' },
          ],
          patterns: [
            { group: ['node:*'], message: 'Node modules do not run in the browser.' },
            { group: ioFrameworks, message: 'Service frameworks do not run in the browser.' },
          ],
        },
      ],
    },
  },
  {
    // Vite's config runs in Node, type-checked apart from the browser code (its own tsconfig).
    files: ['apps/operator-console/web/vite.config.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './apps/operator-console/web/tsconfig.node.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // The one place that reads the process environment, plus the operator CLI's entry (which hands it to
    // the CLI as its settings), dev tooling and test bootstrap.
    files: [
      'libs/platform/src/config/env-source.ts',
      'apps/ums-cli/src/main.ts',
      '**/fixtures/*.main.ts',
      'tools/**/*.ts',
      'libs/testing/src/**/*.ts',
      'jest.config.js',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  prettier,
];
