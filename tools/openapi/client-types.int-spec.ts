import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { clientTypesFileOf, renderClientTypes } from './client-types.renderer';

jest.setTimeout(60_000);

const root = workspaceRoot();
const services = readdirSync(join(root, 'docs', 'openapi'))
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.replace(/\.json$/, ''))
  .sort();

describe('libs/client/src/generated', () => {
  it('holds the types of each committed OpenAPI document, and nothing else', () => {
    expect(services.length).toBeGreaterThan(1);
    const generated = readdirSync(join(root, 'libs', 'client', 'src', 'generated')).sort();
    expect(generated).toEqual(services.map((service) => `${service}.ts`));
  });

  it.each(services)(
    '%s.ts is generated from the committed document (regenerate with npm run docs:openapi)',
    async (service) => {
      const committed = readFileSync(join(root, clientTypesFileOf(service)), 'utf8');
      expect(committed).toBe(await renderClientTypes(root, service));
    },
  );
});
