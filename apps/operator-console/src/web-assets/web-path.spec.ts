import { join } from 'node:path';
import { webPath } from './web-path';

const ROOT = join('/srv', 'console', 'web');

describe('webPath', () => {
  it('gives the page for the root, index.html and trailing slashes', () => {
    for (const path of ['', '/', 'index.html', 'index.html/'])
      expect([path, webPath(ROOT, path)]).toEqual([path, { kind: 'index' }]);
  });

  it('names hashed bundles under assets/ as assets', () => {
    expect(webPath(ROOT, 'assets/index-7dZYyfqa.js')).toEqual({
      kind: 'asset',
      file: join('assets', 'index-7dZYyfqa.js'),
    });
  });

  it('falls back to the page for deep links without an extension, not for missing files', () => {
    expect(webPath(ROOT, 'campaigns/cmp_1/runs/run_1')).toEqual({
      kind: 'file',
      file: join('campaigns', 'cmp_1', 'runs', 'run_1'),
      fallback: true,
    });
    expect(webPath(ROOT, 'favicon.ico')).toEqual({ kind: 'file', file: 'favicon.ico', fallback: false });
  });

  it('serves nothing under api/, health/ or metrics, nor dot files, nor paths leaving the root', () => {
    for (const path of [
      'api',
      'api/scheduler',
      'api/other/v1/x',
      'health/live',
      'metrics',
      '.env',
      'assets/.hidden.js',
      '../package.json',
      'assets/../../secret',
      'a//b',
      'a\\..\\..\\b',
    ])
      expect([path, webPath(ROOT, path)]).toEqual([path, { kind: 'none' }]);
  });
});
