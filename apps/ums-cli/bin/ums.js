#!/usr/bin/env node
// The `ums` operator CLI: runs the SWC build of apps/ums-cli/src/main.ts.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..', '..');
const entry = join(root, 'dist', 'apps', 'ums-cli', 'src', 'main.js');

if (!existsSync(entry)) {
  process.stderr.write(`ums: ${entry} is not built; run "npm run build" first (in ${root})\n`);
  process.exit(2);
}
require(entry);
