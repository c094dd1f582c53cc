import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';

/**
 * The architecture's import rules are enforced by lint, not by convention: this writes files that
 * break each rule into the real tree, lints them with the project's config, and expects errors.
 * (Without Nx's project graph the boundary rule silently skips itself, so the graph is built first,
 * exactly as `npm run lint` does.)
 */
describe('module boundaries (real ESLint config)', () => {
  const root = workspaceRoot();
  const probes: string[] = [];

  beforeAll(() => {
    execFileSync('npx', ['nx', 'show', 'projects'], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, NX_DAEMON: 'false' },
    });
  }, 120_000);

  afterAll(() => {
    for (const probe of probes) rmSync(probe, { force: true });
  });

  const lint = (relativeDir: string, source: string): string[] => {
    const file = join(root, relativeDir, `lint-probe-${randomBytes(4).toString('hex')}.ts`);
    probes.push(file);
    writeFileSync(file, source);
    try {
      // The CLI, as `npm run lint` runs it (ESLint loads its flat config with import(), which Jest's VM refuses).
      const run = spawnSync('npx', ['eslint', '--format', 'json', file], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NX_DAEMON: 'false' },
      });
      const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string | null; message: string }[] }[];
      return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
    } finally {
      rmSync(file, { force: true });
    }
  };

  it('refuses kafkajs in the domain lib', () => {
    const messages = lint(
      'libs/domain/src',
      "import { Kafka } from 'kafkajs';\nexport const probe = Kafka;\n",
    );
    expect(messages.join('\n')).toMatch(/@nx\/enforce-module-boundaries: .*kafkajs/);
  }, 60_000);

  it('refuses Nest, TypeORM and ioredis in the domain lib', () => {
    const messages = lint(
      'libs/domain/src',
      "import { Injectable } from '@nestjs/common';\nimport { DataSource } from 'typeorm';\nimport { Redis } from 'ioredis';\nexport const probe = [Injectable, DataSource, Redis];\n",
    );
    expect(messages.filter((m) => m.startsWith('@nx/enforce-module-boundaries'))).toHaveLength(3);
  }, 60_000);

  it('refuses any lib of ours in contracts', () => {
    const messages = lint(
      'libs/contracts/src',
      "import { CodedError } from '@ums/platform';\nexport const probe = CodedError;\n",
    );
    expect(messages.join('\n')).toMatch(/@nx\/enforce-module-boundaries/);
  }, 60_000);

  it('refuses test helpers and process.env in app code', () => {
    const messages = lint(
      'apps/notification-sender/src',
      "import { waitUntil } from '@ums/testing';\nexport const probe = [waitUntil, process.env['X']];\n",
    );
    expect(messages.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
    expect(messages.some((m) => m.startsWith('no-restricted-properties'))).toBe(true);
  }, 60_000);

  it('refuses floating promises', () => {
    const messages = lint(
      'libs/domain/src',
      'async function later(): Promise<void> {}\nexport function probe(): void {\n  later();\n}\n',
    );
    expect(messages.some((m) => m.startsWith('@typescript-eslint/no-floating-promises'))).toBe(true);
  }, 60_000);

  it('accepts the domain lib using contracts', () => {
    const messages = lint(
      'libs/domain/src',
      "import { RunState } from '@ums/contracts';\nexport const probe = RunState.Running;\n",
    );
    expect(messages).toEqual([]);
  }, 60_000);
});
