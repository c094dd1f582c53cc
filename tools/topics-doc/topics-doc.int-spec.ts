import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { renderTopicsDoc } from './topics-doc.renderer';

describe('docs/topics.md', () => {
  it('matches the contracts (regenerate with npm run docs:topics)', () => {
    expect(readFileSync(join(workspaceRoot(), 'docs', 'topics.md'), 'utf8')).toBe(renderTopicsDoc());
  });
});
