import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the typed client (`libs/client`) keeps the types generated from docs/openapi/<service>.json. */
export function clientTypesFileOf(service: string): string {
  return `libs/client/src/generated/${service}.ts`;
}

/**
 * The TypeScript types (`paths`, `operations`, `components`) of the committed document of a service,
 * as openapi-typescript's own command writes them, with an object schema without properties as
 * `Record<string, unknown>`. Not readonly: openapi-fetch's answer types map readonly arrays to objects.
 * Its command, not its API: the API loads ES modules that Jest cannot.
 */
export async function renderClientTypes(root: string, service: string): Promise<string> {
  const document = join(root, 'docs', 'openapi', `${service}.json`);
  // Its package's exports map `*.js` to `*.mjs`: the command is found from its package.json.
  const command = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
  const { stdout } = await run(process.execPath, [command, document, '--empty-objects-unknown'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return `// Generated from docs/openapi/${service}.json by openapi-typescript (npm run docs:openapi).\n${stdout}`;
}
