import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/** This folder: the Vite root (index.html, src/). */
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const workspace = resolve(webRoot, '..', '..', '..');
/** What apps/operator-console serves (its static assets feature reads the same folder). */
const outDir = join(workspace, 'dist', 'apps', 'operator-console', 'web');
/** Where the content-hashed bundles go; the server gives them a year's immutable cache. */
const assetsDir = 'assets';

/**
 * Removes the hashed files of earlier builds from dist/.../web/assets once the new bundle is written.
 * The folder is not emptied before the build (emptyOutDir: false): a console process serving it while
 * `npm run build` runs again never finds it missing; the old files go only after the new index.html
 * naming the new ones is in place.
 */
function pruneStaleAssets(): Plugin {
  return {
    name: 'ums-prune-stale-assets',
    apply: 'build',
    writeBundle(_options, bundle) {
      const written = new Set(Object.keys(bundle));
      const dir = join(outDir, assetsDir);
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const name = relative(outDir, join(dir, entry.name)).split('\\').join('/');
        const current = written.has(name) || written.has(name.replace(/\.map$/, ''));
        if (entry.isFile() && !current) rmSync(join(dir, entry.name), { force: true });
      }
    },
  };
}

/**
 * The operator console's browser bundle (Preact, automatic JSX runtime). `npm run build` runs it after
 * SWC. `npx vite --config apps/operator-console/web/vite.config.ts --configLoader runner` serves it for
 * development on 5173, its API calls going to a console server on 3006 (`npm run demo -- --keep`).
 */
export default defineConfig({
  root: webRoot,
  base: '/',
  // Vite 8 transforms TS and JSX with Oxc: the automatic runtime from preact/jsx-runtime.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    // Types shared with the services; only type imports (erased) or plain enums belong in the bundle.
    alias: { '@ums/contracts': join(workspace, 'libs', 'contracts', 'src', 'index.ts') },
  },
  build: {
    outDir,
    emptyOutDir: false,
    assetsDir,
    // No data: URIs: every asset is a file, so the console's CSP can stay `default-src 'self'`.
    assetsInlineLimit: 0,
    sourcemap: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
  plugins: [pruneStaleAssets()],
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    proxy: { '/api': { target: 'http://127.0.0.1:3006', changeOrigin: false } },
  },
});
