import 'reflect-metadata';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { renderAsyncApiFiles } from './asyncapi.renderer';

const root = join(workspaceRoot(), 'docs', 'asyncapi');
const files = renderAsyncApiFiles();
// A schema file of a class no topic carries any more goes.
const schemasDir = join(root, 'schemas');
mkdirSync(schemasDir, { recursive: true });
for (const name of readdirSync(schemasDir)) {
  if (!files.has(`schemas/${name}`)) rmSync(join(schemasDir, name));
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
process.stdout.write(`docs/asyncapi written (${files.size} files)\n`);
