import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AllTopics, Scope } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  newOperatorKey,
  runPendingMigrations,
} from '@ums/platform';
import {
  bearer,
  createTestDatabase,
  insertSimulatorCredential,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import type { DataSource } from 'typeorm';
import { createTenantApiKey } from '../stack/pipeline-campaign';
import { type BenchKafka, benchKafkaClient, startBenchKafka } from './bench-kafka';
import { describeHost, hostFigures } from './host-figures';
import { CpuMeter, type CpuFigures, databaseServerPid } from './process-usage';

/**
 * Latency of the HTTP sends, as a client sees it: `POST /v1/messages` (one message: the row committed and
 * its priority batch acknowledged by Kafka, acks=all) and `POST /v1/sends` with 100 inline recipients
 * (campaign, audience import and run committed; scheduled for later, so they add no sending), each
 * with its own Idempotency-Key, one request at a time. Measured twice: without a campaign, and while a
 * campaign of --recipients (from an audience URL, sent to the provider simulator without limits) keeps the
 * scheduler, expander, sender, broker and database busy. Real processes, Kafka and MariaDB.
 *
 * Usage: node tools/run.mjs bench --only http-sends [--messages N] (per phase, default 400)
 *   [--sends N] (per phase, default 40) [--recipients N] (the load campaign, default 150,000)
 */
const GOAL_P99_MS = 50;
const TENANT = 'bench';

interface Options {
  readonly messages: number;
  readonly sends: number;
  readonly recipients: number;
}

interface Latency {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

interface Phase {
  readonly messages: Latency;
  readonly sends: Latency;
  /** Share of both cores busy during the phase (all processes of the machine, from /proc/stat). */
  readonly machineBusy: number;
  /** Share of the cores' time spent idle waiting for disk I/O (the database's writes, mostly). */
  readonly machineIowait: number;
  /** Cores used by each process of the stack during the phase. */
  readonly cores: CpuFigures;
  /** Messages of the load campaign sent per second during the phase (0 without it). */
  readonly campaignSendsPerSec: number;
}

interface Stack {
  readonly ds: DataSource;
  readonly scheduler: ServiceProcess;
  readonly processes: ServiceProcess[];
  readonly apiKey: string;
  readonly csv: Server;
  readonly csvUrl: string;
  /** The processes whose CPU a phase measures, by label. */
  readonly pids: Readonly<Record<string, number | undefined>>;
}

async function main(): Promise<void> {
  const options: Options = {
    messages: intArg('--messages', 400),
    sends: intArg('--sends', 40),
    recipients: intArg('--recipients', 150_000),
  };
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  process.env['UMS_TEST_LOG_DIR'] = join(outDir, 'http-sends-logs');
  const db = await createTestDatabase('bench_http_sends');
  // Before anything starts: the calibration wants an idle machine.
  const host = await hostFigures(db.settings);
  say(describeHost(host));
  const broker = await startBenchKafka(join(workspaceRoot(), '.cache', 'kafka', `http-sends-${process.pid}`));
  let stack: Stack | undefined;
  try {
    stack = await startStack(db, broker, options.recipients);
    // Unmeasured: the services' first requests compile their code paths.
    await measure(stack, { ...options, messages: 100, sends: 10 }, 'warm-up');
    say(
      `without a campaign: ${options.messages} single sends, ${options.sends} bulk sends of 100, one at a time`,
    );
    const alone = await measure(stack, options, 'alone');
    const campaignId = await startLoad(stack);
    say(
      `with a campaign: the same while ${campaignId} sends ${options.recipients.toLocaleString('en')} messages`,
    );
    const loaded = await measure(stack, options, 'loaded', campaignId);
    const stillRunning = await runRunning(stack.ds, campaignId);
    await post(stack, `/v1/campaigns/${campaignId}/stop`, undefined, undefined);
    const figures = {
      options,
      withoutCampaign: alone,
      withCampaign: loaded,
      campaignRunningThroughout: stillRunning,
      host,
      at: new Date(),
    };
    writeFileSync(join(outDir, 'http-sends-bench.json'), `${JSON.stringify(figures, null, 2)}\n`);
    report(alone, loaded, stillRunning);
  } finally {
    await stopStack(stack);
    await db.drop();
    await broker.stop();
  }
}

async function startStack(
  db: Awaited<ReturnType<typeof createTestDatabase>>,
  broker: BenchKafka,
  recipients: number,
): Promise<Stack> {
  const ds = createDataSource(db.settings);
  await ds.initialize();
  await runPendingMigrations(ds);
  const namespace = `bench-${randomBytes(3).toString('hex')}`;
  await ensureTopics(benchKafkaClient('bench'), AllTopics, broker.replication, new KafkaNames(namespace));
  const operatorKey = newOperatorKey();
  const env = {
    ...serviceEnv(db.settings.database, namespace),
    AUTH_OPERATOR_KEY: operatorKey,
    LOG_LEVEL: 'warn',
  };
  const processes: ServiceProcess[] = [];
  const servicePids: Record<string, number | undefined> = {};
  const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
    const started = await startServiceProcess({ app, env: { ...env, ...extra } });
    processes.push(started);
    servicePids[app] = started.process.pid;
    return started;
  };
  const simulatorProcess = await start('provider-simulator', { LOG_LEVEL: 'error' });
  const simulator = new SimulatorClient(simulatorProcess.url);
  const [scheduler] = await Promise.all([
    start('campaign-scheduler', { SCHEDULER_TICK_MS: '200', AUDIENCE_URL_ALLOW_PRIVATE: 'true' }),
    start('batch-expander'),
    start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `bench:${namespace}:` }),
  ]);
  for (const id of ['cred_http', 'cred_load']) {
    const row = {
      id,
      tenantId: TENANT,
      baseUrl: simulatorProcess.url,
      ceilingPerSec: 100_000,
      floorPerSec: 100,
    };
    await insertSimulatorCredential(db.settings, row);
    await simulator.putCredential(id, { provider: 'simulator', callbacks: { enabled: false } });
  }
  const apiKey = await createTenantApiKey({
    schedulerUrl: (scheduler as ServiceProcess).url,
    operatorKey,
    tenantId: TENANT,
    scopes: [Scope.MessagesSend, Scope.CampaignsRead, Scope.CampaignsWrite],
  });
  const csv = await serveCsv(recipients);
  const pids = {
    ...servicePids,
    ...broker.pids,
    mariadb: databaseServerPid(db.settings.port),
    'bench driver': process.pid,
  };
  return { ds, scheduler: scheduler as ServiceProcess, processes, apiKey, pids, ...csv };
}

async function stopStack(stack: Stack | undefined): Promise<void> {
  if (stack === undefined) return;
  await Promise.all(stack.processes.map((p) => p.process.stop()));
  await new Promise((resolve) => stack.csv.close(resolve));
  await stack.ds.destroy();
}

/** The load campaign's audience: `rows` valid German mobile numbers with a variable, served on loopback. */
async function serveCsv(rows: number): Promise<{ csv: Server; csvUrl: string }> {
  const lines = ['phone,code'];
  for (let i = 0; i < rows; i++) lines.push(`+49151${String(10_000_000 + i)},${i % 9973}`);
  const body = `${lines.join('\n')}\n`;
  const csv = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/csv' }).end(body);
  });
  await new Promise<void>((resolve) => csv.listen(0, '127.0.0.1', resolve));
  return { csv, csvUrl: `http://127.0.0.1:${(csv.address() as AddressInfo).port}/audience.csv` };
}

/** Starts the load campaign (`POST /v1/sends` by URL) and waits until it is sending. */
async function startLoad(stack: Stack): Promise<string> {
  const answer = await post(stack, '/v1/sends', {
    campaignName: 'Load',
    channel: 'sms',
    credentialId: 'cred_load',
    content: { text: 'Your code is {{code}}' },
    audienceUrl: stack.csvUrl,
  });
  const campaignId = String(answer['campaignId']);
  const importId = String(answer['audienceImportId']);
  // Its audience imported (the scheduler's own share of the campaign done) and its sends under way.
  await waitUntil(
    'the load campaign is sending',
    async () => {
      const [row] = (await stack.ds.query('SELECT state FROM audience_imports WHERE id = ?', [importId])) as {
        state: string;
      }[];
      if (row?.state === 'FAILED') throw new Error(`the load campaign's audience import ${importId} failed`);
      return row?.state === 'COMPLETED' && (await campaignSent(stack.ds, campaignId)) >= 5_000;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  return campaignId;
}

async function runRunning(ds: DataSource, campaignId: string): Promise<boolean> {
  const [row] = (await ds.query('SELECT state FROM runs WHERE campaign_id = ?', [campaignId])) as {
    state: string;
  }[];
  return row?.state === 'RUNNING';
}

async function measure(stack: Stack, options: Options, label: string, campaignId?: string): Promise<Phase> {
  const cpuBefore = machineCpu();
  const meter = new CpuMeter(stack.pids);
  meter.start();
  const sentBefore = await campaignSent(stack.ds, campaignId);
  const started = performance.now();
  const messages: number[] = [];
  for (let i = 0; i < options.messages; i++) {
    messages.push(
      await timed(stack, '/v1/messages', `${label}-m-${i}`, {
        channel: 'sms',
        credentialId: 'cred_http',
        content: { text: 'Your code is {{code}}' },
        recipient: { address: `+49152${String(10_000_000 + i)}`, variables: { code: String(i) } },
      }),
    );
  }
  const sends: number[] = [];
  for (let i = 0; i < options.sends; i++) {
    sends.push(
      await timed(stack, '/v1/sends', `${label}-s-${i}`, {
        campaignName: `${label} ${i}`,
        channel: 'sms',
        credentialId: 'cred_http',
        content: { text: 'Hello {{name}}' },
        recipients: Array.from({ length: 100 }, (_, r) => ({
          address: `+49153${String(10_000_000 + i * 100 + r)}`,
          variables: { name: `R${r}` },
        })),
        sendAt: '2099-01-01T00:00:00Z',
      }),
    );
  }
  const cpuAfter = machineCpu();
  const machineBusy = share(cpuBefore, cpuAfter, 'busy');
  const machineIowait = share(cpuBefore, cpuAfter, 'iowait');
  const cores = meter.stop();
  const seconds = (performance.now() - started) / 1000;
  const campaignSendsPerSec = Math.round(((await campaignSent(stack.ds, campaignId)) - sentBefore) / seconds);
  return {
    messages: latency(messages),
    sends: latency(sends),
    machineBusy,
    machineIowait,
    cores,
    campaignSendsPerSec,
  };
}

/** Messages of the load campaign sent so far (0 without one). */
async function campaignSent(ds: DataSource, campaignId: string | undefined): Promise<number> {
  if (campaignId === undefined) return 0;
  const [row] = (await ds.query(
    `SELECT COUNT(*) AS n FROM messages WHERE campaign_id = ? AND state = 'SENT'`,
    [campaignId],
  )) as { n: string | number }[];
  return Number(row?.n ?? 0);
}

/** Milliseconds from sending the request to the whole answer, which must be a 202. */
async function timed(stack: Stack, path: string, key: string, body: unknown): Promise<number> {
  const started = performance.now();
  await post(stack, path, body, key);
  return performance.now() - started;
}

async function post(
  stack: Stack,
  path: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.scheduler.url}${path}`, {
    method: 'POST',
    headers: {
      ...bearer(stack.apiKey),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** p50 and p99 by nearest rank, in ms to a tenth. */
function latency(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => round(sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0);
  return { count: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

interface CpuJiffies {
  readonly busy: number;
  readonly iowait: number;
  readonly total: number;
}

/** Busy, I/O-wait and total jiffies of all cores so far (the first line of /proc/stat). */
function machineCpu(): CpuJiffies {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const iowait = fields[4] ?? 0;
  return { busy: total - (fields[3] ?? 0) - iowait, iowait, total };
}

/** The share of the time between two readings that `part` was. */
function share(before: CpuJiffies, after: CpuJiffies, part: 'busy' | 'iowait'): number {
  const total = after.total - before.total;
  return total <= 0 ? 0 : Math.round(((after[part] - before[part]) / total) * 100) / 100;
}

function report(alone: Phase, loaded: Phase, stillRunning: boolean): void {
  for (const [name, phase] of [
    ['without a campaign', alone],
    ['with a campaign', loaded],
  ] as const) {
    say(
      `${name} (machine ${Math.round(phase.machineBusy * 100)}% busy, ` +
        `${Math.round(phase.machineIowait * 100)}% waiting for I/O` +
        (phase.campaignSendsPerSec > 0 ? `, campaign sending ${phase.campaignSendsPerSec} messages/s` : '') +
        '): ' +
        `POST /v1/messages p50 ${phase.messages.p50Ms} ms, p99 ${phase.messages.p99Ms} ms (n=${phase.messages.count}); ` +
        `POST /v1/sends x100 p50 ${phase.sends.p50Ms} ms, p99 ${phase.sends.p99Ms} ms (n=${phase.sends.count})`,
    );
    say(
      `  cores: ${Object.entries(phase.cores)
        .map(([label, used]) => `${label} ${used?.cores ?? '?'}`)
        .join(', ')}`,
    );
  }
  say(
    `goal: p99 under ${GOAL_P99_MS} ms while a campaign saturates the machine: ` +
      `POST /v1/messages ${loaded.messages.p99Ms < GOAL_P99_MS ? 'met' : 'missed'} (${loaded.messages.p99Ms} ms), ` +
      `POST /v1/sends ${loaded.sends.p99Ms < GOAL_P99_MS ? 'met' : 'missed'} (${loaded.sends.p99Ms} ms)` +
      (stillRunning
        ? ''
        : '; the campaign ended before the measurement did: its figures understate the load'),
  );
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function intArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
}

function say(line: string): void {
  process.stdout.write(`[http-sends-bench] ${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `http-sends bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
