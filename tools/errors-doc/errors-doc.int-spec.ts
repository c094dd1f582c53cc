import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODE_AREAS } from '@ums/contracts';
import { workspaceRoot } from '@ums/testing';
import { readCatalogue, renderErrorCodesDoc } from './errors-doc.renderer';

describe('docs/error-codes.md', () => {
  const catalogue = readCatalogue(join(workspaceRoot(), 'libs', 'contracts', 'src', 'errors'));

  it('matches the catalogue (regenerate with npm run docs:errors)', () => {
    expect(readFileSync(join(workspaceRoot(), 'docs', 'error-codes.md'), 'utf8')).toBe(
      renderErrorCodesDoc(catalogue),
    );
  });

  it('has a one-line comment for every area and every code', () => {
    const undocumented = ERROR_CODE_AREAS.flatMap((area) => {
      const documented = catalogue.get(area.name);
      const missing = Object.values(area.codes).filter(
        (code) => (documented?.members.get(code) ?? '') === '',
      );
      return documented?.comment === '' ? [area.name, ...missing] : missing;
    });
    expect(undocumented).toEqual([]);
  });
});
