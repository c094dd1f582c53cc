import 'reflect-metadata';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scope } from '@ums/contracts';
import { provisionMysqlAccounts, testMysqlAccounts, testMysqlSettings, workspaceRoot } from '@ums/testing';
import { consoleUrlOf } from './console/console-url';
import { kafkaNodesArg } from './stack/kafka-nodes-arg';
import {
  defaultLogDir,
  type LocalStack,
  type LocalStackOptions,
  stackUrls,
  startLocalStack,
} from './stack/local-stack';
import {
  createTenantApiKey,
  PIPELINE_SCOPES,
  type PipelineCampaignResult,
  runPipelineCampaign,
} from './stack/pipeline-campaign';
import { rateLimiterFigures } from './stack/rate-limiter-figures';
import { type SecureEngines, startSecureEngines } from './stack/secure-engines';

/** How long the demo's campaign may take end to end. */
const CAMPAIGN_TIMEOUT_MS = 1_800_000;

/**
 * What the operator console's key may do (`--keep`): every page of the console for the demo tenant,
 * reading and acting on campaigns, runs and subscribers, replaying dead letters, reading the audit trail.
 */
const CONSOLE_SCOPES: readonly Scope[] = [
  Scope.CampaignsRead,
  Scope.CampaignsWrite,
  Scope.CredentialsRead,
  Scope.MessagesRead,
  Scope.SubscribersRead,
  Scope.SubscribersWrite,
  Scope.DeadLettersAdmin,
  Scope.AuditRead,
];
/** The console key of a kept stack stops working a day after it is made (the database outlives the stack). */
const CONSOLE_KEY_LIFETIME_MS = 86_400_000;

/**
 * The README's main command. It brings the whole stack up for real (Kafka, schema, topics, the five
 * services and the provider simulator), shows each one ready, then runs a campaign through all of
 * it (see runPipelineCampaign): CSV import, expansion, sending, status callbacks through ingest,
 * and every status relayed to a subscriber the demo runs on loopback, with a progress line per
 * second and a summary; then it stops everything. Options: --recipients N (default 100,000),
 * --rate N (the credential's messages/s, default 5,000), --fail-rate, --error-rate and
 * --throttle-rate (shares 0..1 of permanent refusals, 5xx and 429 answers at the simulated
 * provider), --subscriber-batch N (events per webhook request the demo's subscriber asks for, 1 to 500,
 * default 1), --keep leaves the stack running (API ports 3000-3006, the operator console on 3006,
 * management ports 3100-3106 for health and metrics; Kafka detached in .cache/kafka/dev) and writes
 * an API key for the console to tmp/demo-logs/console-key, --kafka-port N starts the broker on
 * that port, --brokers 3 starts a three-node KRaft cluster on loopback instead of one broker (topics
 * replicated three times, min.insync.replicas 2; free ports, data in .cache/kafka/dev/cluster),
 * --secure runs it all against secured engines started for the run (stack/secure-engines.ts): Kafka
 * over SASL_SSL with SCRAM, MariaDB requiring TLS with an account per service, Redis over TLS with an
 * ACL user, every server verified against a CA made for the run.
 */
async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const recipients = numberArg('--recipients', 100_000);
  const rate = numberArg('--rate', 5_000);
  const failRate = shareArg('--fail-rate', 0.001);
  const errorRate = shareArg('--error-rate', 0.002);
  const throttleRate = shareArg('--throttle-rate', 0);
  const subscriberBatch = numberArg('--subscriber-batch', 1);
  if (subscriberBatch > 500) throw new Error('--subscriber-batch is at most 500');
  const portArg = process.argv.indexOf('--kafka-port');
  const kafkaPort = portArg > 0 ? Number(process.argv[portArg + 1]) : undefined;
  if (kafkaPort !== undefined && !(Number.isInteger(kafkaPort) && kafkaPort > 0 && kafkaPort < 65536)) {
    throw new Error('--kafka-port needs a port number');
  }
  const kafkaNodes = kafkaNodesArg(process.argv);
  if (kafkaNodes === 3 && kafkaPort !== undefined)
    throw new Error('--kafka-port is for one broker, not --brokers 3');
  const started = Date.now();
  const say = (line: string): void =>
    void process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
  const logDir = defaultLogDir('demo-logs');
  const secure = process.argv.includes('--secure');
  if (secure && (keep || kafkaNodes === 3 || kafkaPort !== undefined))
    throw new Error(
      '--secure starts its own engines for one run: not with --keep, --brokers or --kafka-port',
    );
  let stack: LocalStack | undefined;
  let engines: SecureEngines | undefined;
  try {
    engines = secure ? await startSecureEngines(say) : undefined;
    const common = {
      kafkaDataDir: join(workspaceRoot(), '.cache', 'kafka', 'dev'),
      basePort: 3000,
      logDir,
      // The demo's subscriber listens on loopback, which only internal subscribers may use.
      serviceEnv: { 'webhook-dispatcher': { WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true' } },
      onStep: say,
    };
    stack = await startLocalStack(
      engines === undefined
        ? { ...common, ...(await devEngines(say)), keepRunning: keep, kafkaPort, kafkaNodes }
        : {
            ...common,
            kafkaBrokers: engines.brokers,
            mysqlDatabase: engines.database,
            mysqlAccounts: testMysqlAccounts(),
            env: engines.env,
          },
    );
    say(`all ${stack.services.length} services ready; Kafka at ${stack.brokers}`);
    const rows: string[][] = [['service', 'url', 'management', 'ready', 'checks', 'metrics']];
    for (const service of stack.services) {
      const ready = await fetch(`${service.managementUrl}/health/ready`);
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean }> };
      const metrics = await (await fetch(`${service.managementUrl}/metrics`)).text();
      const checks = Object.entries(body.checks).map(([name, r]) => `${name}:${r.ok ? 'ok' : 'FAIL'}`);
      rows.push([
        service.name,
        service.url,
        service.managementUrl,
        String(ready.status),
        checks.join(' ') || '(none)',
        `${metrics.split('\n').filter((l) => l.startsWith('# HELP')).length} series`,
      ]);
    }
    printTable(rows);
    say(
      `operator console: ${consoleUrlOf(stack)}${keep ? '' : ' (until the demo ends; --keep leaves it up)'}`,
    );
    if (keep) say(`the operator key of this stack is in ${writeOperatorKey(logDir, stack.operatorKey)}`);
    // Every API call carries a key: the stack made a random operator key for this run, which makes the
    // key of the demo's tenant used below. Neither is printed; with --keep the operator key is written to
    // tmp/demo-logs/operator-key (mode 0600), for `npm run ums -- keys create` and the README's curl lines.
    const apiKey = await createTenantApiKey({
      schedulerUrl: stackUrls(stack).scheduler,
      operatorKey: stack.operatorKey,
      tenantId: 'demo',
      scopes: PIPELINE_SCOPES,
      // The demo's database outlives the run: its key must not stay valid after it.
      expiresInMs: 2 * CAMPAIGN_TIMEOUT_MS,
    });
    say(`created an API key of tenant demo (${PIPELINE_SCOPES.join(', ')}); every call below carries it`);
    const result = await runPipelineCampaign({
      urls: stackUrls(stack),
      brokers: stack.brokers,
      ...(engines === undefined ? {} : { kafka: engines.kafka }),
      recipients,
      rate,
      permanentFailureRate: failRate,
      error5xxRate: errorRate,
      rate429: throttleRate,
      latency: { minMs: 2, p50Ms: 10, p99Ms: 60 },
      callbacks: {
        deliveredRate: 0.97,
        readRate: 0.6,
        duplicateRate: 0.01,
        outOfOrderRate: 0.01,
        delayMs: 200,
      },
      apiKey,
      operatorKey: stack.operatorKey,
      tenantId: 'demo',
      subscriberBatch,
      say,
      timeoutMs: CAMPAIGN_TIMEOUT_MS,
    });
    printSummary(result);
    await printRateLimiter(stack);
    const problems = problemsOf(result, recipients);
    if (keep) {
      if (problems.length > 0) throw new Error(problems.join('; '));
      await leaveConsoleOpen(stack, logDir, result, say);
      say(
        `--keep: services stay up (logs in ${logDir}); API calls need a key: ` +
          `UMS_API_KEY=$(cat ${join(logDir, 'operator-key')}) npm run -s ums -- keys create --tenant acme ...; ` +
          'stop them with: npm run infra:down',
      );
      process.exit(0);
    }
    const codes = await stack.stop();
    await engines?.stop();
    say(
      `stopped: ${Object.entries(codes)
        .map(([n, c]) => `${n}=${String(c)}`)
        .join(' ')}`,
    );
    const unclean = Object.values(codes).filter((c) => c !== 0).length;
    if (unclean > 0) problems.push(`${unclean} service(s) did not shut down cleanly; see ${logDir}`);
    if (problems.length > 0) throw new Error(problems.join('; '));
  } catch (error: unknown) {
    if (stack !== undefined && !keep) await stack.stop().catch(() => undefined);
    await engines?.stop();
    throw error;
  }
}

/**
 * The machine's own MariaDB and Redis (MYSQL_HOST, MYSQL_PORT, REDIS_URL when set): each service gets
 * its own account with the production grants, made here as MYSQL_USER (root by default), with the
 * tests' public passwords (a dev server).
 */
async function devEngines(
  say: (line: string) => void,
): Promise<Pick<LocalStackOptions, 'kafkaBrokers' | 'mysqlDatabase' | 'mysqlAccounts' | 'env'>> {
  const database = process.env['MYSQL_DATABASE'] ?? 'ums';
  say('creating the MySQL accounts of the services and the migrator');
  return {
    kafkaBrokers: process.env['KAFKA_BROKERS'] || undefined,
    mysqlDatabase: database,
    mysqlAccounts: await provisionMysqlAccounts(testMysqlSettings(database), database),
    env: pick(['MYSQL_HOST', 'MYSQL_PORT', 'REDIS_URL']),
  };
}

function printSummary(r: PipelineCampaignResult): void {
  const c = r.counters;
  const seconds = (ms: number | null): string => (ms === null ? '-' : (ms / 1000).toFixed(1));
  const perSecond = (count: number, ms: number | null): string =>
    ms === null || ms === 0 ? '-' : Math.round(count / (ms / 1000)).toLocaleString('en');
  const t = r.timeline;
  process.stdout.write('\nStages (seconds after the run was started; the import comes before it):\n');
  printTable([
    ['stage', 'count', 'done at s', 'per second'],
    ['imported', String(r.rowsAccepted), `-${seconds(t.importMs)}`, perSecond(r.rowsAccepted, t.importMs)],
    ['expanded', String(c.total), seconds(t.expandedMs), perSecond(c.total, t.expandedMs)],
    [
      'sent (every message settled)',
      String(c.total - c.skipped),
      seconds(t.sentMs),
      perSecond(c.total, t.sentMs),
    ],
    ['callbacks posted by the provider', String(r.simulator.callbacksPosted), seconds(t.callbacksMs), '-'],
    ['status events relayed', String(r.relayed), seconds(t.relayedMs), perSecond(r.relayed, t.relayedMs)],
  ]);
  process.stdout.write('\nMessages by final state, and what the provider and the subscriber saw:\n');
  printTable([
    ['recipients', 'SENT', 'DELIVERED', 'READ', 'FAILED', 'UNKNOWN', 'PENDING', 'SKIPPED'],
    [c.total, c.sent, c.delivered, c.read, c.failed, c.unknown, c.pending + c.sending, c.skipped].map(String),
  ]);
  printTable([
    [
      'provider accepted',
      'duplicates',
      'status events',
      'relayed',
      'lost',
      'bad signatures',
      'seconds',
      'msg/s',
    ],
    [
      String(r.simulator.accepted),
      String(r.simulator.duplicates),
      String(r.statusEvents),
      String(r.relayed),
      String(r.lost),
      String(r.invalidSignatures),
      seconds(t.relayedMs),
      perSecond(c.total, t.relayedMs),
    ],
  ]);
}

/**
 * The sender's rate limiter over the campaign, from its metrics: how much of the credential's rate was
 * granted and given back unspent (its grant went stale before the messages could go), the AIMD rate it
 * ended at, and the congestion it heard.
 */
async function printRateLimiter(stack: LocalStack): Promise<void> {
  const sender = stack.services.find((service) => service.name === 'notification-sender');
  if (sender === undefined) return;
  const figures = rateLimiterFigures(await (await fetch(`${sender.managementUrl}/metrics`)).text());
  const congestion = Object.entries(figures.congestion).map(([kind, count]) => `${kind} ${count}`);
  process.stdout.write("\nThe sender's rate limiter (from its metrics):\n");
  printTable([
    ['tokens granted', 'given back unspent', 'AIMD rate at the end', 'congestion heard'],
    [
      figures.tokensGranted.toLocaleString('en'),
      `${figures.tokensGivenBack.toLocaleString('en')} (${(figures.givenBackShare * 100).toFixed(1)}%)`,
      figures.rates.map((rate) => `${rate.toLocaleString('en')}/s`).join(', ') || '-',
      congestion.join(', ') || 'none',
    ],
  ]);
}

/** What makes the demo fail: anything lost, left pending, stuck or sent twice. */
function problemsOf(r: PipelineCampaignResult, recipients: number): string[] {
  const c = r.counters;
  const problems: string[] = [];
  if (r.runState !== 'COMPLETED') problems.push(`the run ended ${r.runState}`);
  if (r.simulator.duplicates !== 0)
    problems.push(`the simulator saw ${r.simulator.duplicates} message ids twice`);
  if (c.total !== recipients) problems.push(`${c.total} of ${recipients} recipients expanded`);
  if (c.pending + c.sending !== 0) problems.push(`${c.pending + c.sending} messages left pending`);
  if (r.lost !== 0) problems.push(`${r.lost} status events never reached the subscriber`);
  if (r.invalidSignatures !== 0) problems.push(`${r.invalidSignatures} deliveries had a bad signature`);
  return problems;
}

/**
 * A kept stack's console, on the demo's run: a key of tenant demo with the console's scopes, written to
 * `<logDir>/console-key` (never printed), and the URL of the run's page to sign in on with it.
 */
async function leaveConsoleOpen(
  stack: LocalStack,
  logDir: string,
  result: PipelineCampaignResult,
  say: (line: string) => void,
): Promise<void> {
  const consoleKey = await createTenantApiKey({
    schedulerUrl: stackUrls(stack).scheduler,
    operatorKey: stack.operatorKey,
    tenantId: 'demo',
    scopes: CONSOLE_SCOPES,
    expiresInMs: CONSOLE_KEY_LIFETIME_MS,
  });
  const keyFile = writeSecretFile(logDir, 'console-key', consoleKey);
  const runPage = `${consoleUrlOf(stack)}/#/campaigns/${result.campaignId}/runs/${result.runId}`;
  say(`the demo's run in the operator console: ${runPage}`);
  say(`sign in there with the API key in ${keyFile} (tenant demo: ${CONSOLE_SCOPES.join(', ')})`);
}

/** The operator key in `<logDir>/operator-key`, readable by this user only; answers the file's path. */
function writeOperatorKey(logDir: string, operatorKey: string): string {
  return writeSecretFile(logDir, 'operator-key', operatorKey);
}

/** A key in `<logDir>/<name>`, readable by this user only; answers the file's path. */
function writeSecretFile(logDir: string, name: string, secret: string): string {
  mkdirSync(logDir, { recursive: true });
  const file = join(logDir, name);
  // Made anew, so no earlier file's mode applies: 'wx' creates it with 0600 or fails.
  rmSync(file, { force: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
}

function shareArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!(Number.isFinite(value) && value >= 0 && value <= 1))
    throw new Error(`${name} needs a share between 0 and 1`);
  return value;
}

function pick(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) => (process.env[n] !== undefined ? [[n, process.env[n] as string]] : [])),
  );
}

function printTable(rows: string[][]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const [index, row] of rows.entries()) {
    process.stdout.write(`  ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}\n`);
    if (index === 0) process.stdout.write(`  ${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
