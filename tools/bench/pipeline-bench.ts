import 'reflect-metadata';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDataSource } from '@ums/platform';
import { createTestDatabase, testMysqlAccounts, workspaceRoot } from '@ums/testing';
import { kafkaNodesArg } from '../stack/kafka-nodes-arg';
import { Scope } from '@ums/contracts';
import { consoleUrlOf } from '../console/console-url';
import { type LocalStack, SERVICE_NAMES, stackUrls, startLocalStack } from '../stack/local-stack';
import {
  createTenantApiKey,
  PIPELINE_SCOPES,
  type PipelineCampaignResult,
  runPipelineCampaign,
} from '../stack/pipeline-campaign';
import {
  databaseUse,
  type DatabaseCounterValues,
  readDatabaseCounters,
  startTableWrites,
  type TableWrites,
  tableWritesPerMessage,
} from './database-counters';
import { RECOMMENDED_DATABASE_SIZES, setDatabaseSizes } from './database-settings';
import { databaseLabel, describeHost, hostFigures } from './host-figures';
import { ConsoleLoad, type ConsoleLoadFigures } from './console-load';
import { type CpuFigures, CpuMeter, databaseServerPid, findProcess, peakRssMb } from './process-usage';

/**
 * The whole pipeline on this machine, with the simulated provider's limits out of the way: a CSV of
 * N recipients (default 1,000,000) imported through the campaign API, expanded, sent to the
 * simulator, three status callbacks per message (sent, delivered, read) posted to webhook-ingest,
 * applied by the sender and relayed to a subscriber on loopback. Prints per-stage throughput,
 * end-to-end messages/s, run-start-to-send latency, peak RSS per process, duplicates and the
 * delivery rows written DELIVERED by their insert, and
 * writes them to tmp/bench/pipeline-bench.json. Usage: pipeline-bench [--recipients N] [--senders N]
 * [--subscriber-batch N] (events per webhook request the subscriber asks for, 1 to 500; default 100,
 * the subscriber taking `webhook.batch` requests; 1 for one event per request)
 * [--cpu-prof] (a V8 CPU profile per service process in tmp/bench/profiles, for Chrome DevTools)
 * [--heap-mb N] (`--max-old-space-size=N` for every service process, to see RSS against throughput)
 * [--node-option FLAG]... (more Node or V8 flags for every service process, e.g. `--trace-gc`, whose
 * output goes to each service's log in tmp/bench/pipeline-logs)
 * [--tune-database] (the database server's redo log and buffer pool set to the sizes docs/operations.md
 * recommends for the run, server-wide, and put back after it; without it the server runs as it is)
 * [--brokers 3] (a three-node KRaft cluster on loopback instead of one broker: topics replicated three
 * times, min.insync.replicas 2)
 * [--consoles N] (N operator consoles open through the run, console-load.ts: the stack starts the
 * console server, and each console keeps the live campaigns stream and the run's live stream open and
 * makes the run page's API calls once a second; the figures add what they received and the CPU of the
 * scheduler and the console server).
 */
async function main(): Promise<void> {
  const recipients = intArg('--recipients', 1_000_000);
  const senders = intArg('--senders', 1);
  const subscriberBatch = intArg('--subscriber-batch', 100);
  const consoles = process.argv.includes('--consoles') ? countArg('--consoles') : 0;
  const kafkaNodes = kafkaNodesArg(process.argv);
  if (subscriberBatch > 500) throw new Error('--subscriber-batch is at most 500');
  const heapMb = process.argv.includes('--heap-mb') ? intArg('--heap-mb', 0) : undefined;
  const nodeOptions = process.argv.flatMap((arg, i) =>
    process.argv[i - 1] === '--node-option' ? [arg] : [],
  );
  const profileDir = process.argv.includes('--cpu-prof')
    ? join(workspaceRoot(), 'tmp', 'bench', 'profiles')
    : undefined;
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  const db = await createTestDatabase('bench_pipeline');
  const dataDir = join(workspaceRoot(), '.cache', 'kafka', `pipeline-bench-${process.pid}`);
  rmSync(dataDir, { recursive: true, force: true });
  let stack: LocalStack | undefined;
  let restoreDatabase: (() => Promise<void>) | undefined;
  let tableWrites: Awaited<ReturnType<typeof startTableWrites>>;
  try {
    if (process.argv.includes('--tune-database'))
      restoreDatabase = await setDatabaseSizes(db.admin, RECOMMENDED_DATABASE_SIZES);
    // Before anything starts: the calibration wants an idle machine.
    const host = await hostFigures(db.settings);
    say(describeHost(host));
    stack = await startLocalStack({
      kafkaBrokers: process.env['KAFKA_BROKERS'] || undefined,
      kafkaDataDir: dataDir,
      kafkaNodes,
      mysqlDatabase: db.settings.database,
      logDir: join(outDir, 'pipeline-logs'),
      replicas: { 'notification-sender': senders },
      // The console server only when consoles are open: without them it would be an idle process.
      services: SERVICE_NAMES.filter((name) => consoles > 0 || name !== 'operator-console'),
      // Written when each service exits (the stack stops them with SIGTERM).
      nodeArgs: [
        ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
        ...(heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`]),
        ...nodeOptions,
      ],
      env: {
        LOG_LEVEL: 'warn',
        MYSQL_HOST: db.settings.host,
        MYSQL_PORT: String(db.settings.port),
      },
      mysqlAccounts: testMysqlAccounts(),
      serviceEnv: { 'webhook-dispatcher': { WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true' } },
      onStep: say,
    });
    const running = stack;
    // The bench's calls carry a key of its tenant, made with the stack's operator key (never printed).
    const apiKey = await createTenantApiKey({
      schedulerUrl: stackUrls(running).scheduler,
      operatorKey: running.operatorKey,
      tenantId: 'bench',
      scopes: PIPELINE_SCOPES,
    });
    say(
      `${recipients.toLocaleString('en')} recipients, ${senders} sender replica(s), ` +
        `Kafka: ${kafkaNodes === 3 ? 'three-node cluster (replication 3)' : 'one broker'}, ` +
        `subscriber takes ${subscriberBatch === 1 ? 'one event' : `up to ${subscriberBatch} events`} per request`,
    );
    // Where the two cores go: every service, the broker, the database and Redis servers, and this
    // process (the CSV upload, the progress queries and the loopback subscriber).
    const cpu = new CpuMeter({
      ...Object.fromEntries(running.services.map((s) => [s.label, s.process.pid])),
      ...(running.cluster === undefined
        ? { kafka: running.broker?.pid }
        : Object.fromEntries(running.cluster.nodes.map((node) => [`kafka-${node.id}`, node.pid]))),
      [databaseLabel(host)]: databaseServerPid(db.settings.port),
      redis: findProcess('redis-server'),
      'bench driver and subscriber': process.pid,
    });
    const consoleLoad = await openConsoles(running, consoles);
    tableWrites = await startTableWrites(db.admin, db.settings.database);
    const countersBefore = await readDatabaseCounters(db.settings);
    cpu.start();
    let cpuUsed: ReturnType<CpuMeter['stop']> | undefined;
    let consolesSeen: Promise<ConsoleLoadFigures> | undefined;
    let countersAfter: Promise<DatabaseCounterValues> | undefined;
    let tablesAfter: Promise<Record<string, TableWrites>> | undefined;
    const result = await runPipelineCampaign({
      urls: stackUrls(running),
      brokers: running.brokers,
      recipients,
      // Far above what this machine can do: the limiter never holds the pipeline back.
      rate: 100_000,
      permanentFailureRate: 0,
      error5xxRate: 0,
      rate429: 0,
      latency: { minMs: 0, p50Ms: 1, p99Ms: 5 },
      callbacks: { deliveredRate: 1, readRate: 1, duplicateRate: 0, outOfOrderRate: 0, delayMs: 50 },
      apiKey,
      operatorKey: running.operatorKey,
      tenantId: 'bench',
      subscriberBatch,
      say: (line) => say(line),
      timeoutMs: 3_600_000,
      // The CPU of the pipeline, not of reading the status topic back for the check.
      onSettled: () => {
        cpuUsed = cpu.stop();
        consolesSeen = consoleLoad?.stop();
        countersAfter = readDatabaseCounters(db.settings);
        tablesAfter = tableWrites?.read();
      },
    });
    cpuUsed ??= cpu.stop();
    const consoleFigures = await (consolesSeen ?? consoleLoad?.stop());
    const database = databaseUse(
      countersBefore,
      await (countersAfter ?? readDatabaseCounters(db.settings)),
      recipients,
    );
    const tables = await (tablesAfter ?? tableWrites?.read());
    const rss = Object.fromEntries(running.services.map((s) => [s.label, peakRssMb(s.process.pid)]));
    const ds = createDataSource(db.settings);
    await ds.initialize();
    const sending = await sendFigures(ds, result);
    const deliveryRows = await deliveryRowFigures(ds);
    await ds.destroy();
    const figures = {
      ...summarize(result, sending, rss, senders),
      subscriberEventsPerRequest: subscriberBatch,
      kafkaNodes,
      deliveryRows,
      ...(consoleFigures === undefined ? {} : { consoles: consoleFigures }),
      cpu: cpuUsed,
      database,
      // Rows changed per message in each table, and times the indexes each change touched (MariaDB).
      ...(tables === undefined ? {} : { tableWritesPerMessage: tableWritesPerMessage(tables, recipients) }),
      host,
    };
    const file = join(outDir, 'pipeline-bench.json');
    writeFileSync(file, `${JSON.stringify({ ...figures, at: new Date().toISOString() }, null, 2)}\n`);
    print(figures);
    if (consoleFigures !== undefined) say(consolesLine(consoleFigures, cpuUsed));
    say(`figures written to ${file}`);
    const codes = await stack.stop();
    stack = undefined;
    const unclean = Object.entries(codes).filter(([, code]) => code !== 0);
    if (unclean.length > 0) say(`unclean exits: ${JSON.stringify(Object.fromEntries(unclean))}`);
    if (result.simulator.duplicates !== 0 || result.lost !== 0 || result.runState !== 'COMPLETED')
      throw new Error(
        `run ${result.runState}, duplicates ${result.simulator.duplicates}, lost ${result.lost}: see the figures above`,
      );
  } finally {
    await stack?.stop();
    try {
      // Through the bench's database, so before it is dropped.
      await restoreDatabase?.();
      await tableWrites?.restore();
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

interface SendFigures {
  /** First claim to last recorded send, from the message rows. */
  readonly seconds: number;
  readonly sent: number;
  /** Run start to each message's send time, milliseconds. */
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

/** Sends/s and run-start-to-send latency from the message rows themselves (sent_at is the recorded send). */
async function sendFigures(
  ds: ReturnType<typeof createDataSource>,
  result: PipelineCampaignResult,
): Promise<SendFigures> {
  const [span] = (await ds.query(
    `SELECT COUNT(*) AS n, TIMESTAMPDIFF(MICROSECOND, MIN(claimed_at), MAX(sent_at)) AS us
       FROM messages WHERE run_id = ? AND sent_at > '1970-01-01'`,
    [result.runId],
  )) as { n: string | number; us: string | number | null }[];
  const sent = Number(span?.n ?? 0);
  const at = async (q: number): Promise<number> => {
    const offset = Math.min(sent - 1, Math.floor(q * sent));
    const [row] = (await ds.query(
      `SELECT TIMESTAMPDIFF(MICROSECOND, ?, sent_at) AS us FROM messages
        WHERE run_id = ? AND sent_at > '1970-01-01' ORDER BY sent_at LIMIT 1 OFFSET ?`,
      [result.startedAt, result.runId, Math.max(0, offset)],
    )) as { us: string | number }[];
    return Math.round(Number(row?.us ?? 0) / 1000);
  };
  return {
    seconds: Number(span?.us ?? 0) / 1e6,
    sent,
    latencyMs: { p50: await at(0.5), p99: await at(0.99), max: await at(1) },
  };
}

/**
 * The subscriber's delivery rows: a delivery answered at its first attempt, before its backlog chunk
 * was written, leaves none; the others are written PENDING and settled later.
 */
async function deliveryRowFigures(
  ds: ReturnType<typeof createDataSource>,
): Promise<{ total: number; delivered: number }> {
  const [row] = (await ds.query(
    `SELECT COUNT(*) AS total, COALESCE(SUM(state = 'DELIVERED'), 0) AS delivered FROM deliveries`,
  )) as { total: string | number; delivered: string | number }[];
  return { total: Number(row?.total ?? 0), delivered: Number(row?.delivered ?? 0) };
}

function summarize(
  r: PipelineCampaignResult,
  sending: SendFigures,
  peakRssMb: Record<string, number | null>,
  senders: number,
): Record<string, unknown> {
  const t = r.timeline;
  const perSecond = (count: number, ms: number | null): number | null =>
    ms === null || ms <= 0 ? null : Math.round(count / (ms / 1000));
  const span = (from: number | null, to: number | null): number | null =>
    from === null || to === null ? null : to - from;
  return {
    recipients: r.counters.total,
    senders,
    stages: {
      importRowsPerSec: perSecond(r.rowsAccepted, t.importMs),
      expandRecipientsPerSec: perSecond(r.counters.total, t.expandedMs),
      sendsPerSec: Math.round(sending.sent / sending.seconds),
      callbacksPerSec: perSecond(r.simulator.callbacksPosted, span(t.firstSentMs, t.callbacksMs)),
      deliveriesPerSec: perSecond(r.relayed, span(t.firstRelayedMs, t.relayedMs)),
    },
    endToEndMessagesPerSec: perSecond(r.counters.total, t.relayedMs),
    secondsAfterStart: {
      import: t.importMs / 1000,
      expanded: seconds(t.expandedMs),
      sent: seconds(t.sentMs),
      callbacksApplied: seconds(t.callbacksMs),
      relayed: seconds(t.relayedMs),
    },
    runStartToSendMs: sending.latencyMs,
    counts: {
      runState: r.runState,
      ...r.counters,
      providerAccepted: r.simulator.accepted,
      duplicates: r.simulator.duplicates,
      callbacksPosted: r.simulator.callbacksPosted,
      statusEvents: r.statusEvents,
      relayed: r.relayed,
      lost: r.lost,
      invalidSignatures: r.invalidSignatures,
    },
    peakRssMb,
  };
}

/**
 * N consoles on the stack's console server, with a key of the bench's tenant that reads campaigns
 * and messages (as an operator's browser would hold); none when N is 0.
 */
async function openConsoles(stack: LocalStack, consoles: number): Promise<ConsoleLoad | undefined> {
  if (consoles === 0) return undefined;
  const apiKey = await createTenantApiKey({
    schedulerUrl: stackUrls(stack).scheduler,
    operatorKey: stack.operatorKey,
    tenantId: 'bench',
    scopes: [Scope.CampaignsRead, Scope.MessagesRead],
  });
  say(
    `${consoles} console(s) open on ${consoleUrlOf(stack)}: live campaigns, the run's live stream, its page's calls`,
  );
  return ConsoleLoad.start({ consoleUrl: consoleUrlOf(stack), apiKey, consoles });
}

/** What the consoles cost: their count and frames, and the CPU of the scheduler and the console server. */
function consolesLine(figures: ConsoleLoadFigures, cpu: CpuFigures): string {
  const cores = (label: string): string => {
    const used = cpu[label];
    return used === null || used === undefined ? 'n/a' : `${used.cores} cores (${used.cpuSeconds} s)`;
  };
  return (
    `consoles: ${figures.consoles} open (${figures.campaignFrames} campaign frames, ${figures.runSamples} run samples, ` +
    `${figures.pageCalls} page calls, ${figures.pageCallsFailed} failed, ${figures.streamErrors} stream errors); ` +
    `CPU: campaign-scheduler ${cores('campaign-scheduler')}, operator-console ${cores('operator-console')}`
  );
}

function print(figures: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(figures)) say(`${key}: ${JSON.stringify(value)}`);
}

function seconds(ms: number | null): number | null {
  return ms === null ? null : ms / 1000;
}

function intArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
}

/** A count argument that may be 0 (`--consoles 0`). */
function countArg(name: string): number {
  const value = Number(process.argv[process.argv.indexOf(name) + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} needs a whole number, 0 or more`);
  return value;
}

function say(line: string): void {
  process.stdout.write(`[pipeline-bench] ${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `pipeline bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
