import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from '@swc/core';
import { workspaceRoot } from '@ums/testing';

/**
 * `@ums/<lib>` is resolved in three places: tsc and ESLint (tsconfig.base.json), SWC when it compiles
 * dist/ and the tests (.swcrc, which rewrites the imports to relative paths, so dist/ runs with plain
 * node) and Jest for what SWC leaves as written (moduleNameMapper). They must agree, on every lib.
 */
describe('@ums/* path aliases', () => {
  const root = workspaceRoot();
  const json = (file: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;
  const swcrc = json('.swcrc') as { jsc: { baseUrl: string; paths: Record<string, string[]> } };
  const tsPaths = (json('tsconfig.base.json') as { compilerOptions: { paths: Record<string, string[]> } })
    .compilerOptions.paths;
  const libs = readdirSync(join(root, 'libs'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('are the same in .swcrc and tsconfig.base.json, one per lib', () => {
    expect(swcrc.jsc.paths).toEqual(tsPaths);
    expect(Object.keys(tsPaths).sort()).toEqual(libs.map((lib) => `@ums/${lib}`));
  });

  it("resolve in Jest's moduleNameMapper to the same files", () => {
    // jest.config.js is CommonJS that reads .swcrc beside it: loaded as Jest itself loads it.
    const config = require(join(root, 'jest.config.js')) as {
      projects: { moduleNameMapper: Record<string, string> }[];
    };
    const mapper = Object.entries(config.projects[0]?.moduleNameMapper ?? {});
    for (const [alias, [target]] of Object.entries(tsPaths)) {
      const mapped = mapper.find(([pattern]) => new RegExp(pattern).test(alias));
      const [pattern, replacement] = mapped ?? ['', ''];
      expect([alias, alias.replace(new RegExp(pattern), replacement)]).toEqual([
        alias,
        `<rootDir>/${target}`,
      ]);
    }
  });

  it('are rewritten by SWC into paths relative to the compiled file', () => {
    const source = "import { RunState } from '@ums/contracts';\nexport const probe = RunState.Running;\n";
    const { code } = transformSync(source, {
      ...swcrc,
      jsc: { ...swcrc.jsc, baseUrl: root },
      swcrc: false,
      filename: join(root, 'apps', 'some-app', 'src', 'main.ts'),
    } as Parameters<typeof transformSync>[1]);
    expect(code).toContain('require("../../../libs/contracts/src")');
    expect(code).not.toContain('@ums/');
  });
});
