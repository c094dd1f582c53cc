import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';

/** One file that breaks (or keeps) a rule: where it goes and what it holds. */
interface Probe {
  readonly dir: string;
  readonly source: string;
}

const PROBES = {
  kafkajsInDomain: {
    dir: 'libs/domain/src',
    source: "import { Kafka } from 'kafkajs';\nexport const probe = Kafka;\n",
  },
  frameworksInDomain: {
    dir: 'libs/domain/src',
    source:
      "import { Injectable } from '@nestjs/common';\nimport { DataSource } from 'typeorm';\nimport { Redis } from 'ioredis';\nexport const probe = [Injectable, DataSource, Redis];\n",
  },
  platformInContracts: {
    dir: 'libs/contracts/src',
    source: "import { CodedError } from '@ums/platform';\nexport const probe = CodedError;\n",
  },
  testingAndEnvInApp: {
    dir: 'apps/notification-sender/src',
    source:
      "import { waitUntil } from '@ums/testing';\nexport const probe = [waitUntil, process.env['X']];\n",
  },
  floatingPromise: {
    dir: 'libs/domain/src',
    source: 'async function later(): Promise<void> {}\nexport function probe(): void {\n  later();\n}\n',
  },
  contractsInDomain: {
    dir: 'libs/domain/src',
    source: "import { RunState } from '@ums/contracts';\nexport const probe = RunState.Running;\n",
  },
  platformInCli: {
    dir: 'apps/ums-cli/src',
    source: "import { CodedError } from '@ums/platform';\nexport const probe = CodedError;\n",
  },
  contractsInCli: {
    dir: 'apps/ums-cli/src',
    source: "import type { RunView } from '@ums/contracts';\nexport type Probe = RunView['state'];\n",
  },
  clientInCli: {
    dir: 'apps/ums-cli/src',
    source: "import { CampaignApiClient } from '@ums/client';\nexport const probe = CampaignApiClient;\n",
  },
  clientInService: {
    dir: 'apps/notification-sender/src',
    source: "import { CampaignApiClient } from '@ums/client';\nexport const probe = CampaignApiClient;\n",
  },
  platformInClient: {
    dir: 'libs/client/src',
    source: "import { CodedError } from '@ums/platform';\nexport const probe = CodedError;\n",
  },
  domainInConsole: {
    dir: 'apps/operator-console/src',
    source: "import { transitionCampaign } from '@ums/domain';\nexport const probe = transitionCampaign;\n",
  },
  serviceCodeInConsoleWeb: {
    dir: 'apps/operator-console/web/src',
    source:
      "import { readFileSync } from 'node:fs';\nimport { CodedError } from '@ums/platform';\nexport const probe = [readFileSync, CodedError];\n",
  },
  contractsInConsoleWeb: {
    dir: 'apps/operator-console/web/src',
    source: "import type { RunView } from '@ums/contracts';\nexport type Probe = RunView['state'];\n",
  },
} satisfies Record<string, Probe>;

/**
 * The architecture's import rules are enforced by lint, not by convention: this writes files that
 * break each rule into the real tree, lints them with the project's config, and expects errors.
 * (Without Nx's project graph the boundary rule silently skips itself, so the graph is built first,
 * exactly as `npm run lint` does.) One ESLint run lints every probe: a type-aware run costs seconds.
 */
describe('module boundaries (real ESLint config)', () => {
  const root = workspaceRoot();
  const messagesOf = new Map<keyof typeof PROBES, string[]>();

  beforeAll(() => {
    execFileSync('npx', ['nx', 'show', 'projects'], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, NX_DAEMON: 'false' },
    });
    const files = new Map<string, keyof typeof PROBES>();
    for (const [name, probe] of Object.entries(PROBES) as [keyof typeof PROBES, Probe][]) {
      const file = join(root, probe.dir, `lint-probe-${randomBytes(4).toString('hex')}.ts`);
      writeFileSync(file, probe.source);
      files.set(file, name);
    }
    try {
      // The CLI, as `npm run lint` runs it (ESLint loads its flat config with import(), which Jest's VM refuses).
      const run = spawnSync('npx', ['eslint', '--format', 'json', ...files.keys()], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NX_DAEMON: 'false' },
      });
      const results = JSON.parse(run.stdout) as {
        filePath: string;
        messages: { ruleId: string | null; message: string }[];
      }[];
      for (const result of results) {
        const name = files.get(result.filePath);
        if (name !== undefined)
          messagesOf.set(
            name,
            result.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`),
          );
      }
    } finally {
      for (const file of files.keys()) rmSync(file, { force: true });
    }
  }, 180_000);

  const lint = (name: keyof typeof PROBES): string[] => {
    const messages = messagesOf.get(name);
    if (messages === undefined) throw new Error(`ESLint reported nothing for the ${name} probe`);
    return messages;
  };

  it('refuses kafkajs in the domain lib', () => {
    expect(lint('kafkajsInDomain').join('\n')).toMatch(/@nx\/enforce-module-boundaries: .*kafkajs/);
  });

  it('refuses Nest, TypeORM and ioredis in the domain lib', () => {
    const messages = lint('frameworksInDomain');
    expect(messages.filter((m) => m.startsWith('@nx/enforce-module-boundaries'))).toHaveLength(3);
  });

  it('refuses any lib of ours in contracts', () => {
    expect(lint('platformInContracts').join('\n')).toMatch(/@nx\/enforce-module-boundaries/);
  });

  it('refuses test helpers and process.env in app code', () => {
    const messages = lint('testingAndEnvInApp');
    expect(messages.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
    expect(messages.some((m) => m.startsWith('no-restricted-properties'))).toBe(true);
  });

  it('refuses floating promises', () => {
    const messages = lint('floatingPromise');
    expect(messages.some((m) => m.startsWith('@typescript-eslint/no-floating-promises'))).toBe(true);
  });

  it('accepts the domain lib using contracts', () => {
    expect(lint('contractsInDomain')).toEqual([]);
  });

  it('refuses platform in the operator CLI, and accepts the typed client and contracts there', () => {
    expect(lint('platformInCli').join('\n')).toMatch(/@nx\/enforce-module-boundaries/);
    expect(lint('contractsInCli')).toEqual([]);
    expect(lint('clientInCli')).toEqual([]);
  });

  it("keeps the typed client out of the services' code, and the platform out of the client", () => {
    expect(lint('clientInService').join('\n')).toMatch(/no-restricted-imports: .*typed HTTP client/);
    expect(lint('platformInClient').join('\n')).toMatch(/@nx\/enforce-module-boundaries/);
  });

  it("keeps the domain out of the operator console, and Node and the services' code out of its browser code", () => {
    expect(lint('domainInConsole').join('\n')).toMatch(/@nx\/enforce-module-boundaries/);
    const web = lint('serviceCodeInConsoleWeb').filter((m) => m.startsWith('no-restricted-imports'));
    expect(web).toHaveLength(2);
    expect(lint('contractsInConsoleWeb')).toEqual([]);
  });
});
