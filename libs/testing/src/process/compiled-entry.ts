import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '../workspace-root';

/**
 * The node command line for a TypeScript entry point, run from its SWC build in dist/ (what
 * production images run). The Jest global setup builds dist/ before integration tests.
 */
export function compiledEntry(tsPath: string): { command: string; args: string[] } {
  const root = workspaceRoot();
  const js = join(root, 'dist', tsPath.replace(/\.ts$/, '.js'));
  if (!existsSync(js)) throw new Error(`${js} not built: run npm run build`);
  return {
    command: process.execPath,
    args: ['-r', join(root, 'dist', 'tools', 'runtime', 'register-aliases.js'), js],
  };
}
