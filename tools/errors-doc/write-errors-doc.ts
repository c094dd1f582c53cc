import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { readCatalogue, renderErrorCodesDoc } from './errors-doc.renderer';

const root = workspaceRoot();
const catalogue = readCatalogue(join(root, 'libs', 'contracts', 'src', 'errors'));
writeFileSync(join(root, 'docs', 'error-codes.md'), renderErrorCodesDoc(catalogue));
process.stdout.write('docs/error-codes.md written\n');
