#!/usr/bin/env node
// The `ums` operator CLI: runs the SWC build of tools/cli/ums-cli.ts with the @ums/* alias resolver.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..', '..');
const entry = join(root, 'dist', 'tools', 'cli', 'ums-cli.js');
const aliases = join(root, 'dist', 'tools', 'runtime', 'register-aliases.js');

if (!existsSync(entry) || !existsSync(aliases)) {
  process.stderr.write(`ums: ${entry} is not built; run "npm run build" first (in ${root})\n`);
  process.exit(2);
}
require(aliases);
require(entry);
