import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { renderTopicsDoc } from './topics-doc.renderer';

writeFileSync(join(workspaceRoot(), 'docs', 'topics.md'), renderTopicsDoc());
process.stdout.write('docs/topics.md written\n');
