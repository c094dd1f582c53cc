import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '../workspace-root';

/**
 * The young generation's cap per semi-space, in MB, as the deployment sets it (NODE_OPTIONS: 16 in the
 * image, 8 in the sender's config map). Node 24 sizes it from the machine's memory instead: on a 24 GiB
 * host the sender reached 369-383 MB of RSS in the 100,000-recipient pipeline bench, against 286-295 MB with
 * 16, which was also faster (2,804-2,881 messages/s against 2,554-2,676). With 8 the sender took 265-267 MB
 * at 100,000, for about 1.4 s more of its CPU; over 1,000,000 recipients it peaked at 315 MB with 16 and 306
 * with 8, and at 280 with 8 and the malloc arenas below.
 */
const SEMI_SPACE_MB: Readonly<Record<string, number>> = { 'notification-sender': 8 };
const DEFAULT_SEMI_SPACE_MB = 16;

/**
 * glibc malloc arenas, as the image sets them (MALLOC_ARENA_MAX in the Dockerfile): with the default (8 per
 * core) the memory that Node's threads (GC helpers, libuv pool) free stays spread over many arenas, and the
 * sender's and dispatcher's RSS crept up over a 1,000,000-recipient run (306 and 249 MB; 280 and 225 with 2,
 * at the same CPU).
 */
export const SERVICE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** The Node flags the deployment gives the process of an entry point (`apps/<app>/...`: that app's). */
export function serviceNodeFlags(tsPath: string): string[] {
  const app = /^apps\/([^/]+)\//.exec(tsPath)?.[1];
  return [
    `--max-semi-space-size=${(app === undefined ? undefined : SEMI_SPACE_MB[app]) ?? DEFAULT_SEMI_SPACE_MB}`,
  ];
}

/**
 * Node's compile cache for local runs (not the images, whose file systems are read-only): tests start
 * and kill service processes hundreds of times, and with the cache loading a service's modules took
 * 1.4-1.6 s of CPU instead of 2.2-2.3 s on a loaded two-core host.
 */
const COMPILE_CACHE_DIR = ['tmp', 'node-compile-cache'];

/**
 * The node command line for a TypeScript entry point, run from its SWC build in dist/ (what
 * production images run), with the images' Node flags, then `nodeArgs` (which win over them), and the
 * images' environment (plus the local compile cache) to add to the process's. The Jest global setup
 * builds dist/ before integration tests.
 */
export function compiledEntry(
  tsPath: string,
  nodeArgs: readonly string[] = [],
): { command: string; args: string[]; env: Readonly<Record<string, string>> } {
  const root = workspaceRoot();
  const js = join(root, 'dist', tsPath.replace(/\.ts$/, '.js'));
  if (!existsSync(js)) throw new Error(`${js} not built: run npm run build`);
  return {
    command: process.execPath,
    args: [...serviceNodeFlags(tsPath), ...nodeArgs, js],
    env: { ...SERVICE_ENV, NODE_COMPILE_CACHE: join(root, ...COMPILE_CACHE_DIR) },
  };
}
