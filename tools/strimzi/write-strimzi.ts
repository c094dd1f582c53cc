import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { renderGeneratedComponents } from './strimzi.renderer';

const components = join(workspaceRoot(), 'k8s', 'components');
for (const [path, text] of Object.entries(renderGeneratedComponents())) {
  mkdirSync(dirname(join(components, path)), { recursive: true });
  writeFileSync(join(components, path), text);
  process.stdout.write(`k8s/components/${path} written\n`);
}
