import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '../workspace-root';

/**
 * The young generation's cap, as the images set it (NODE_OPTIONS in the Dockerfile). Node 24 sizes it from
 * the machine's memory instead: on a 24 GiB host that took the sender to 369-383 MB of RSS in the pipeline
 * bench, against 276-288 MB with 16 MB, which was no slower (2,772 and 2,881 messages/s, against 2,554
 * and 2,676).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/**
 * The node command line for a TypeScript entry point, run from its SWC build in dist/ (what
 * production images run), with the images' Node flags, then `nodeArgs` (which win over them). The
 * Jest global setup builds dist/ before integration tests.
 */
export function compiledEntry(
  tsPath: string,
  nodeArgs: readonly string[] = [],
): { command: string; args: string[] } {
  const root = workspaceRoot();
  const js = join(root, 'dist', tsPath.replace(/\.ts$/, '.js'));
  if (!existsSync(js)) throw new Error(`${js} not built: run npm run build`);
  return {
    command: process.execPath,
    args: [
      ...SERVICE_NODE_FLAGS,
      ...nodeArgs,
      '-r',
      join(root, 'dist', 'tools', 'runtime', 'register-aliases.js'),
      js,
    ],
  };
}
