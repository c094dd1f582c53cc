import { isAbsolute, relative, resolve } from 'node:path';

/** The page every route of the browser app loads (its routes are `#/...` fragments). */
export const INDEX_FILE = 'index.html';
/** The folder of the content-hashed bundles (the Vite config's assetsDir). */
export const ASSETS_DIR = 'assets';

/** Content-hashed bundles: a new build has new names, so browsers keep these for a year unasked. */
export const HASHED_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The page and other unhashed files: kept, but revalidated on every use (ETag / Last-Modified). */
export const REVALIDATE_CACHE_CONTROL = 'no-cache';

/**
 * First path segments the page never answers for: API calls (`/api/...` that no proxy route took) and
 * the management port's paths, so a probe or scrape sent to the wrong port fails instead of getting
 * the page.
 */
const RESERVED: ReadonlySet<string> = new Set(['api', 'health', 'metrics']);

/**
 * What a GET path of the API port asks for, before looking at the disk:
 * - `index`: the page itself (`/`, `/index.html`);
 * - `asset`: a content-hashed bundle under `/assets/` (cached for a year, never revalidated);
 * - `file`: another file of the build (favicon, ...), served if it exists, else `page-or-none`;
 * - `none`: nothing the console serves (a RESERVED path, a dot file, a path leaving the web root):
 *   the platform's 404.
 * `file` also says whether a missing file falls back to the page: paths without an extension are
 * the browser app's deep links, so they load the page.
 */
export type WebPath =
  | { readonly kind: 'index' }
  | { readonly kind: 'asset'; readonly file: string }
  | { readonly kind: 'file'; readonly file: string; readonly fallback: boolean }
  | { readonly kind: 'none' };

/** Classifies `path` (decoded, without the leading `/` nor the query) against the web root `root`. */
export function webPath(root: string, path: string): WebPath {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === INDEX_FILE) return { kind: 'index' };
  const segments = trimmed.split('/');
  if (
    RESERVED.has(segments[0] ?? '') ||
    segments.some((s) => s.startsWith('.') || s.includes('\\') || s === '')
  ) {
    return { kind: 'none' };
  }
  const file = resolve(root, ...segments);
  const inside = relative(root, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return { kind: 'none' };
  if (segments[0] === ASSETS_DIR) return { kind: 'asset', file: inside };
  const last = segments[segments.length - 1] ?? '';
  return { kind: 'file', file: inside, fallback: !last.includes('.') };
}
