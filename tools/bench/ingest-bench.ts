import 'reflect-metadata';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchKafkaClient, startBenchKafka } from './bench-kafka';
import { cpuSeconds } from './process-usage';
import { AllTopics, type ProviderEventV1, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  parseSecretKeys,
  runPendingMigrations,
  SecretBox,
} from '@ums/platform';
import {
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_SECRETS_KEYS,
  workspaceRoot,
} from '@ums/testing';
import type { Kafka } from 'kafkajs';
import { Pool } from 'undici';

/**
 * Webhook-ingest benchmark: signed WhatsApp Cloud API status webhooks posted on loopback to one
 * webhook-ingest process (real Kafka, acks=all, MariaDB for the credential), as fast as it answers.
 * Prints callbacks/s (posts answered 2xx), statuses/s, p50/p99 latency, and proves nothing was
 * lost: every status of every acknowledged post is counted on ums.provider.events.v1 by event id.
 *
 * Usage: npm run -s build && node \
 *   dist/tools/bench/ingest-bench.js [--seconds 10] [--in-flight 512] [--statuses 1,50] [--cpu-prof]
 * (`--cpu-prof`: a V8 CPU profile of the ingest process in tmp/bench/profiles.)
 * (`--statuses`: statuses per webhook, one scenario each; batched scenarios use in-flight / 16.)
 */
interface Scenario {
  readonly name: string;
  readonly statusesPerPost: number;
  readonly inFlight: number;
}

interface Figures {
  scenario: string;
  seconds: number;
  callbacks: number;
  callbacksPerSecond: number;
  statusesPerSecond: number;
  non2xx: number;
  p50Ms: number;
  p99Ms: number;
  /** 1-minute load average when the scenario started (the machine may be shared). */
  loadAverage: number;
  /** CPU the ingest process used during the scenario: percent of one core, and per answered callback. */
  ingestCpuPercent: number | undefined;
  ingestCpuUsPerCallback: number | undefined;
  /** The rest of the machine meanwhile: this bench's own client and the Kafka broker (percent of one core). */
  clientCpuPercent: number;
  brokerCpuPercent: number | undefined;
  acknowledgedStatuses: number;
  onTopic: number;
  lost: number;
}

const APP_SECRET = 'bench-app-secret';
const say = (line: string): void => void process.stdout.write(`[ingest-bench] ${line}\n`);

async function main(): Promise<void> {
  const seconds = Number(argument('--seconds') ?? 10);
  const inFlight = Number(argument('--in-flight') ?? 512);
  const sizes = (argument('--statuses') ?? '1,50').split(',').map(Number);
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  process.env['UMS_TEST_LOG_DIR'] = join(outDir, 'logs');
  const broker = await startBenchKafka(
    join(workspaceRoot(), '.cache', 'kafka', `ingest-bench-${process.pid}`),
  );
  const kafka = benchKafkaClient('ingest-bench');
  const db = await createTestDatabase('ingest_bench');
  let ingest: ServiceProcess | undefined;
  const figures: Figures[] = [];
  try {
    const ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const keys = parseSecretKeys(TEST_SECRETS_KEYS);
    if (!('keys' in keys)) throw new Error(keys.error);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
                                callback_secret_ciphertext, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_bench', 'bench', 'bench', 'whatsapp-cloud', 'whatsapp', ?, ?, ?, 1000, 10)`,
      [
        JSON.stringify({ baseUrl: 'http://127.0.0.1:1', phoneNumberId: '1065' }),
        new SecretBox(keys.keys).seal('access-token'),
        new SecretBox(keys.keys).seal(APP_SECRET),
      ],
    );
    await ds.destroy();
    const namespace = `bench-${randomBytes(3).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(kafka, AllTopics, broker.replication, names);
    ingest = await startServiceProcess({
      app: 'webhook-ingest',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        LOG_LEVEL: 'error',
      },
      nodeArgs: process.argv.includes('--cpu-prof')
        ? ['--cpu-prof', `--cpu-prof-dir=${join(outDir, 'profiles')}`]
        : [],
    });
    // Providers post from many connections at once; the in-flight count is what the ingest absorbs.
    const scenarios: Scenario[] = sizes.map((statusesPerPost) => ({
      name: `whatsapp, ${statusesPerPost} status${statusesPerPost === 1 ? '' : 'es'} per webhook`,
      statusesPerPost,
      inFlight: statusesPerPost === 1 ? inFlight : Math.max(8, Math.round(inFlight / 16)),
    }));
    for (const [index, scenario] of scenarios.entries()) {
      const result = await run(
        ingest,
        scenario,
        `s${index}`,
        seconds,
        kafka,
        names,
        Object.values(broker.pids),
      );
      figures.push(result);
      say(
        `${scenario.name}: ${result.callbacksPerSecond.toLocaleString('en')} callbacks/s, ` +
          `${result.statusesPerSecond.toLocaleString('en')} statuses/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ` +
          `non-2xx ${result.non2xx}, load ${result.loadAverage}, ingest CPU ${result.ingestCpuPercent ?? '?'}% ` +
          `(${result.ingestCpuUsPerCallback ?? '?'} µs per callback), client CPU ${result.clientCpuPercent}%, ` +
          `broker CPU ${result.brokerCpuPercent ?? '?'}%; acknowledged ${result.acknowledgedStatuses.toLocaleString('en')} statuses, ` +
          `on the topic ${result.onTopic.toLocaleString('en')}, lost ${result.lost}`,
      );
    }
    const file = join(outDir, 'ingest-bench.json');
    writeFileSync(file, `${JSON.stringify({ figures, at: new Date().toISOString() }, null, 2)}\n`);
    say(`figures written to ${file}`);
    if (figures.some((f) => f.lost > 0)) process.exitCode = 1;
  } finally {
    await ingest?.process.stop();
    await db.drop();
    await broker.stop();
  }
}

async function run(
  ingest: ServiceProcess,
  scenario: Scenario,
  tag: string,
  seconds: number,
  kafka: Kafka,
  names: KafkaNames,
  brokerPids: readonly (number | undefined)[],
): Promise<Figures> {
  const pool = new Pool(ingest.url, { connections: Math.min(scenario.inFlight, 256), pipelining: 1 });
  const acknowledged = new Set<string>();
  const latencies: number[] = [];
  let callbacks = 0;
  let non2xx = 0;
  let nextId = 1;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const loadAverage = Number((loadavg()[0] ?? 0).toFixed(2));
  const cpuBefore = cpuSeconds(ingest.process.pid);
  const brokerBefore = brokersCpuSeconds(brokerPids);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const ids: string[] = [];
      const statuses = [];
      for (let i = 0; i < scenario.statusesPerPost; i++) {
        const id = nextId++;
        const wamid = `wamid.${tag}.${id}`;
        ids.push(`wa:${wamid}:DELIVERED`);
        statuses.push({
          id: wamid,
          status: 'delivered',
          timestamp,
          recipient_id: `49151${String(id).padStart(8, '0')}`,
          biz_opaque_callback_data: String(id),
          conversation: { id: `CONV-${id}`, origin: { type: 'marketing' } },
          pricing: { billable: true, pricing_model: 'PMP', category: 'marketing' },
        });
      }
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'WABA-1',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550783881', phone_number_id: '1065' },
                  statuses,
                },
              },
            ],
          },
        ],
      });
      const signature = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
      const t0 = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: '/v1/callbacks/whatsapp/cred_bench',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body,
      });
      await response.body.dump();
      latencies.push(performance.now() - t0);
      callbacks++;
      if (response.statusCode >= 200 && response.statusCode < 300) for (const id of ids) acknowledged.add(id);
      else non2xx++;
    }
  };
  await Promise.all(Array.from({ length: scenario.inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(ingest.process.pid);
  const brokerAfter = brokersCpuSeconds(brokerPids);
  const client = process.cpuUsage(clientBefore);
  await pool.close();
  const onTopic = await countOnTopic(kafka, names, tag, acknowledged);
  latencies.sort((a, b) => a - b);
  const pick = (q: number): number =>
    Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2));
  const answered = callbacks - non2xx;
  const cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : undefined;
  return {
    scenario: scenario.name,
    seconds: Number(elapsed.toFixed(2)),
    callbacks,
    callbacksPerSecond: Math.round(answered / elapsed),
    statusesPerSecond: Math.round((answered * scenario.statusesPerPost) / elapsed),
    non2xx,
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
    loadAverage,
    ingestCpuPercent: cpu === undefined ? undefined : Math.round((100 * cpu) / elapsed),
    ingestCpuUsPerCallback:
      cpu === undefined || answered === 0 ? undefined : Math.round((cpu * 1e6) / answered),
    clientCpuPercent: Math.round((client.user + client.system) / 1e4 / elapsed),
    brokerCpuPercent:
      brokerBefore !== null && brokerAfter !== null
        ? Math.round((100 * (brokerAfter - brokerBefore)) / elapsed)
        : undefined,
    acknowledgedStatuses: acknowledged.size,
    onTopic: onTopic.seen,
    lost: onTopic.missing,
  };
}

/** Reads the provider-events topic from the start and counts the acknowledged event ids it holds. */
async function countOnTopic(
  kafka: Kafka,
  names: KafkaNames,
  tag: string,
  acknowledged: ReadonlySet<string>,
): Promise<{ seen: number; missing: number }> {
  const seen = new Set<string>();
  const consumer = kafka.consumer({ groupId: `ingest-bench-${tag}-${randomBytes(3).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topic: names.topic(Topics.providerEvents.name), fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) {
        const event = JSON.parse(String(message.value)) as ProviderEventV1;
        if (acknowledged.has(event.eventId)) seen.add(event.eventId);
      }
      await Promise.resolve();
    },
  });
  // Everything acknowledged is already on the broker; allow the reader time to get through it.
  const until = Date.now() + 120_000;
  let last = -1;
  let idleSince = Date.now();
  while (seen.size < acknowledged.size && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (seen.size !== last) {
      last = seen.size;
      idleSince = Date.now();
    } else if (Date.now() - idleSince > 15_000) break;
  }
  await consumer.disconnect();
  return { seen: seen.size, missing: acknowledged.size - seen.size };
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

/** CPU seconds of every Kafka node together; null when one cannot be read (none started here). */
function brokersCpuSeconds(pids: readonly (number | undefined)[]): number | null {
  const each = pids.map(cpuSeconds);
  return each.length > 0 && each.every((s) => s !== null)
    ? each.reduce<number>((sum, s) => sum + (s ?? 0), 0)
    : null;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[ingest-bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
