import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout's root (where nx.json is), from source or from dist alike. */
export function workspaceRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'nx.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`nx.json not found above ${__dirname}`);
    dir = parent;
  }
  return dir;
}
