'use strict';
// swc compiles `import ... from '@ums/platform'` to `require('@ums/platform')` verbatim: it does not
// rewrite the tsconfig `paths`, and the libraries are not packages in node_modules. Preload this file
// (`node -r ./dist/tools/runtime/register-aliases.js ...`) so that `@ums/<lib>` resolves to the
// compiled `<dist root>/libs/<lib>/src/index.js` before Node's normal lookup runs. Plain CommonJS with
// no dependencies, because it has to work before anything else is loadable.
const Module = require('node:module');
const path = require('node:path');

// This file lives at <dist root>/tools/runtime/register-aliases.js.
const distRoot = path.resolve(__dirname, '..', '..');
const alias = /^@ums\/([a-z0-9-]+)$/;

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveUmsAlias(request, parent, isMain, options) {
  const match = typeof request === 'string' ? alias.exec(request) : null;
  const target = match ? path.join(distRoot, 'libs', match[1], 'src', 'index.js') : request;
  return resolveFilename.call(this, target, parent, isMain, options);
};
