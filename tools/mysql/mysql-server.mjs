// A MySQL server for the compatibility run (`npm run test:mysql`): the suites run against MariaDB by
// default, and the SQL must run on MySQL too. Debian ships MySQL only in unstable (sid), as
// mysql-server-core 9.x built against sid's libc, so this fetches that package and the libraries it
// links from deb.debian.org, checks each against the SHA-256 listed in sid's package index (fetched
// over plain HTTP; its signature is not checked), unpacks them under .cache/mysql and runs mysqld
// through sid's own loader (the host's older libc is never touched). Plain Node with no dependencies,
// like run.mjs; needs `xz` and `dpkg-deb` (Debian has both).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reachable } from '../port-probe.mjs';

const MIRROR = 'http://deb.debian.org/debian';
const INDEX = `${MIRROR}/dists/sid/main/binary-amd64/Packages.xz`;
const SERVER_PACKAGE = 'mysql-server-core';
// What mysqld never loads: maintainer-script tools and packages whose files it does not read.
const NOT_NEEDED = new Set([
  'perl',
  'perl-base',
  'debconf',
  'libc-bin',
  'dpkg',
  'passwd',
  'adduser',
  'init-system-helpers',
  'mysql-common',
  'tzdata',
  'ucf',
]);

const say = (line) => process.stdout.write(`[mysql] ${line}\n`);

function must(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'pipe', ...options });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}): ${String(result.stderr).trim()}`,
    );
  }
  return result.stdout;
}

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** Debian's Packages index as name -> stanza fields (the first stanza of a name wins). */
function parseIndex(text) {
  const packages = new Map();
  const provides = new Map();
  for (const stanza of text.split('\n\n')) {
    const fields = {};
    for (const line of stanza.split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      const colon = line.indexOf(':');
      fields[line.slice(0, colon)] = line.slice(colon + 1).trim();
    }
    if (fields.Package === undefined || packages.has(fields.Package)) continue;
    packages.set(fields.Package, fields);
    for (const provided of (fields.Provides ?? '').split(',')) {
      const name = provided.trim().split(' ')[0];
      if (name && !provides.has(name)) provides.set(name, fields.Package);
    }
  }
  return { packages, provides };
}

/** The server package and everything it depends on, transitively (first alternative of each). */
function closure({ packages, provides }, root) {
  const wanted = [root];
  const seen = new Set();
  const found = [];
  while (wanted.length > 0) {
    const name = wanted.pop().split(':')[0];
    if (seen.has(name) || NOT_NEEDED.has(name)) continue;
    seen.add(name);
    const fields = packages.get(name) ?? packages.get(provides.get(name) ?? '');
    if (fields === undefined) throw new Error(`${name}: not in Debian sid's index`);
    found.push(fields);
    for (const relation of [fields['Pre-Depends'], fields.Depends]) {
      for (const alternatives of (relation ?? '').split(',')) {
        const first = alternatives.split('|')[0].trim().split(' ')[0];
        if (first) wanted.push(first);
      }
    }
  }
  return found;
}

/** Unpacks mysqld and its libraries under `dir` once; returns the command that runs mysqld. */
async function install(dir) {
  const root = join(dir, 'root');
  const libs = join(root, 'usr', 'lib', 'x86_64-linux-gnu');
  const command = {
    file: join(libs, 'ld-linux-x86-64.so.2'),
    args: [
      '--library-path',
      `${libs}:${join(root, 'lib', 'x86_64-linux-gnu')}`,
      join(root, 'usr', 'sbin', 'mysqld'),
    ],
    basedir: join(root, 'usr'),
    messages: join(root, 'usr', 'share', 'mysql'),
  };
  if (existsSync(join(dir, 'installed'))) return command;
  for (const tool of ['xz', 'dpkg-deb']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is needed`);
  }
  say(`reading ${INDEX}`);
  const index = parseIndex(String(must('xz', ['-dc'], { input: await download(INDEX), maxBuffer: 1 << 30 })));
  const debs = closure(index, SERVER_PACKAGE);
  say(
    `fetching ${SERVER_PACKAGE} ${debs[0].Version} and the ${debs.length - 1} packages it needs from ${MIRROR}`,
  );
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const fields of debs) {
    const body = await download(`${MIRROR}/${fields.Filename}`);
    const sha = createHash('sha256').update(body).digest('hex');
    if (sha !== fields.SHA256)
      throw new Error(`${fields.Filename}: SHA-256 ${sha}, the index says ${fields.SHA256}`);
    const file = join(dir, 'package.deb');
    writeFileSync(file, body);
    must('dpkg-deb', ['-x', file, root]);
    rmSync(file);
  }
  writeFileSync(join(dir, 'installed'), `${debs.map((d) => `${d.Package} ${d.Version}`).join('\n')}\n`);
  return command;
}

/**
 * Starts a throwaway MySQL server on 127.0.0.1:`port` (root, empty password), its data under
 * `dir`/data-<port> made afresh each time. Returns its version and a stop function.
 */
export async function startMysqlServer({ dir, port }) {
  if (await reachable('127.0.0.1', port))
    throw new Error(`port ${port} is taken: set MYSQL_COMPAT_PORT to a free one`);
  const mysqld = await install(dir);
  const version = String(must(mysqld.file, [...mysqld.args, '--version'])).trim();
  const data = join(dir, `data-${port}`);
  rmSync(data, { recursive: true, force: true });
  const common = [
    '--no-defaults',
    ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    `--datadir=${data}`,
    `--basedir=${mysqld.basedir}`,
    `--lc-messages-dir=${mysqld.messages}`,
  ];
  must(mysqld.file, [...mysqld.args, ...common, '--initialize-insecure']);
  const server = spawn(
    mysqld.file,
    [
      ...mysqld.args,
      ...common,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(data, 'mysqld.sock')}`,
      '--mysqlx=OFF',
      '--secure-file-priv=',
      '--max-connections=1000',
      `--log-error=${join(dir, `error-${port}.log`)}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => server.once('exit', resolve));
  for (let i = 0; i < 240 && !(await reachable('127.0.0.1', port)); i++) {
    if (server.exitCode !== null)
      throw new Error(`mysqld exited (${server.exitCode}): see ${dir}/error-${port}.log`);
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!(await reachable('127.0.0.1', port))) throw new Error(`mysqld did not answer on ${port} within 60 s`);
  return {
    version,
    stop: async () => {
      server.kill('SIGTERM');
      await exited;
      rmSync(data, { recursive: true, force: true });
    },
  };
}
