import 'reflect-metadata';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { defaultLogDir, type LocalStack, startLocalStack } from './stack/local-stack';

/**
 * The README's main command. It brings the whole stack up for real (Kafka, schema, topics, the five
 * services and the provider simulator), shows each one ready, then runs a campaign through it: a
 * simulator credential, a generated CSV audience uploaded to the campaign API, the run expanded
 * and sent, with a progress line per second and a summary (counts by state, duplicates seen by the
 * simulator), and stops everything. Options: --recipients N (default 10,000), --rate N (the
 * credential's messages/s, default 2,000), --keep leaves the stack running (ports 3000-3005; Kafka
 * detached in .cache/kafka/dev), --kafka-port N starts the broker on that port.
 */
async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const recipients = numberArg('--recipients', 10_000);
  const rate = numberArg('--rate', 2_000);
  const portArg = process.argv.indexOf('--kafka-port');
  const kafkaPort = portArg > 0 ? Number(process.argv[portArg + 1]) : undefined;
  if (kafkaPort !== undefined && !(Number.isInteger(kafkaPort) && kafkaPort > 0 && kafkaPort < 65536)) {
    throw new Error('--kafka-port needs a port number');
  }
  const started = Date.now();
  const say = (line: string): void =>
    void process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
  const logDir = defaultLogDir('demo-logs');
  let stack: LocalStack | undefined;
  try {
    stack = await startLocalStack({
      kafkaBrokers: process.env['KAFKA_BROKERS'] || undefined,
      kafkaDataDir: join(workspaceRoot(), '.cache', 'kafka', 'dev'),
      keepRunning: keep,
      kafkaPort,
      mysqlDatabase: process.env['MYSQL_DATABASE'] ?? 'ums',
      basePort: 3000,
      logDir,
      env: pick(['MYSQL_HOST', 'MYSQL_PORT', 'MYSQL_USER', 'MYSQL_PASSWORD', 'REDIS_URL']),
      onStep: say,
    });
    say(`all ${stack.services.length} services ready; Kafka at ${stack.brokers}`);
    const rows: string[][] = [['service', 'url', 'ready', 'checks', 'metrics']];
    for (const service of stack.services) {
      const ready = await fetch(`${service.url}/health/ready`);
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean }> };
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      const checks = Object.entries(body.checks).map(([name, r]) => `${name}:${r.ok ? 'ok' : 'FAIL'}`);
      rows.push([
        service.name,
        service.url,
        String(ready.status),
        checks.join(' ') || '(none)',
        `${metrics.split('\n').filter((l) => l.startsWith('# HELP')).length} series`,
      ]);
    }
    printTable(rows);
    const url = (name: string): string => {
      const service = stack?.services.find((candidate) => candidate.name === name);
      if (service === undefined) throw new Error(`${name} is not running`);
      return service.url;
    };
    await runCampaign(url('campaign-scheduler'), url('provider-simulator'), recipients, rate, say);
    if (keep) {
      say(`--keep: services stay up (logs in ${logDir}); stop them with: npm run infra:down`);
      process.exit(0);
    }
    const codes = await stack.stop();
    say(
      `stopped: ${Object.entries(codes)
        .map(([n, c]) => `${n}=${String(c)}`)
        .join(' ')}`,
    );
    const unclean = Object.values(codes).filter((c) => c !== 0).length;
    if (unclean > 0) throw new Error(`${unclean} service(s) did not shut down cleanly; see ${logDir}`);
  } catch (error: unknown) {
    if (stack !== undefined && !keep) await stack.stop().catch(() => undefined);
    throw error;
  }
}

/** A campaign from CSV to provider, as a user of the API would run it. Throws if anything was lost or sent twice. */
async function runCampaign(
  scheduler: string,
  simulator: string,
  recipients: number,
  rate: number,
  say: (line: string) => void,
): Promise<void> {
  const credential = await call<{ id: string }>('POST', `${scheduler}/v1/credentials`, {
    tenantId: 'demo',
    name: 'demo simulator',
    provider: 'simulator',
    channel: 'sms',
    config: { baseUrl: simulator },
    rateCeilingPerSec: rate,
    rateFloorPerSec: Math.max(1, Math.floor(rate / 10)),
  });
  // The simulator keys its settings and counts by our credential id, which the adapter sends.
  // One number is refused permanently, to show a FAILED message; status callbacks come with issue 7.
  await call('PUT', `${simulator}/_sim/credentials/${credential.id}`, {
    provider: 'simulator',
    latency: { minMs: 2, p50Ms: 10, p99Ms: 60 },
    permanentFailures: ['+4915100000007'],
    callbacks: { enabled: false },
  });
  const campaign = await call<{ id: string }>('POST', `${scheduler}/v1/campaigns`, {
    tenantId: 'demo',
    name: 'Demo campaign',
    channel: 'sms',
    credentialId: credential.id,
    template: { text: 'Hi {{first_name}}, your code is {{code}}' },
    schedule: { kind: 'now' },
  });
  const csv = ['phone,first_name,code'];
  for (let i = 0; i < recipients; i++) csv.push(`+4915100${String(i).padStart(6, '0')},R${i},${i % 9973}`);
  const form = new FormData();
  form.append('file', new Blob([`${csv.join('\n')}\n`], { type: 'text/csv' }), 'audience.csv');
  const importStarted = Date.now();
  const imported = await fetch(`${scheduler}/v1/campaigns/${campaign.id}/audience/csv`, {
    method: 'POST',
    body: form,
  });
  const summary = (await imported.json()) as Record<string, unknown>;
  if (imported.status !== 201)
    throw new Error(`audience upload answered ${imported.status}: ${JSON.stringify(summary)}`);
  say(
    `imported ${String(summary['rowsAccepted'])} recipients in ${((Date.now() - importStarted) / 1000).toFixed(1)} s ` +
      `(rejected ${String(summary['rowsRejected'])}, duplicates ${String(summary['rowsDuplicate'])})`,
  );
  await call('POST', `${scheduler}/v1/campaigns/${campaign.id}/start`, {});
  const started = Date.now();
  let last: RunView | undefined;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const view = await call<{ runs: RunView[] }>('GET', `${scheduler}/v1/campaigns/${campaign.id}`);
    const run = view.runs[0];
    if (run === undefined) continue;
    const c = run.counters;
    const seconds = (Date.now() - started) / 1000;
    say(
      `run ${run.state}: expanded ${c.total}, sent ${c.sent}, failed ${c.failed}, unknown ${c.unknown}, ` +
        `pending ${c.pending} (${Math.round((c.sent + c.failed) / seconds)} msg/s)`,
    );
    last = run;
    if (['COMPLETED', 'FAILED', 'STOPPED'].includes(run.state)) break;
    if (seconds > 600) throw new Error('the run did not finish within 10 minutes');
  }
  const seconds = (Date.now() - started) / 1000;
  const stats = await call<{ accepted: number; duplicates: number; maxPerSecond: number }>(
    'GET',
    `${simulator}/_sim/stats?credentialId=${credential.id}`,
  );
  const c = last.counters;
  printTable([
    [
      'recipients',
      'sent',
      'failed',
      'unknown',
      'pending',
      'provider accepted',
      'duplicates',
      'seconds',
      'msg/s',
    ],
    [
      String(c.total),
      String(c.sent),
      String(c.failed),
      String(c.unknown),
      String(c.pending),
      String(stats.accepted),
      String(stats.duplicates),
      seconds.toFixed(1),
      String(Math.round(c.total / seconds)),
    ],
  ]);
  if (last.state !== 'COMPLETED') throw new Error(`the run ended ${last.state}`);
  if (stats.duplicates !== 0) throw new Error(`the simulator saw ${stats.duplicates} message ids twice`);
  if (c.total !== recipients || c.pending !== 0)
    throw new Error(`${c.pending} of ${c.total} messages left pending`);
}

interface RunView {
  readonly state: string;
  readonly counters: { total: number; pending: number; sent: number; failed: number; unknown: number };
}

async function call<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
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
