import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type BenchKafka, benchKafkaClient, startBenchKafka } from './bench-kafka';
import { databaseLabel, describeHost, hostFigures, type HostFigures } from './host-figures';
import { type CpuFigures, CpuMeter, databaseServerPid, findProcess, peakRssMb } from './process-usage';
import { join } from 'node:path';
import { AllTopics, type MessageBatchV1, SendLane, Topics, Channel } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  insertSimulatorCredential,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import type { Kafka } from 'kafkajs';
import type { DataSource } from 'typeorm';

const CAMPAIGNS = 24;
const BATCH = 100;

interface RoundFigures {
  readonly replicas: number;
  readonly messages: number;
  readonly seconds: number;
  readonly sendsPerSecond: number;
  /** Per message, from its claim (batch consumed, tokens granted) to its row recorded SENT. */
  readonly claimToRecordedMs: { readonly p50: number; readonly p99: number };
  /** Per batch, from handed to the sender to every message recorded (the sender's histogram). */
  readonly batchMs: { readonly p50: number; readonly p99: number };
  readonly senderPeakRssMb: number[];
  readonly simulatorPeakRssMb: number;
  readonly simulatorAccepted: number;
  readonly duplicates: number;
  /**
   * Every process the sends keep busy, from just before the replicas start to the last row recorded;
   * the replicas' own figures include their start-up (about 1.2 s of CPU each).
   */
  readonly cpu: CpuFigures;
}

/**
 * Sender-stage benchmark: batches already on Kafka (24 campaigns, so the partitions spread over
 * the replicas), message rows PENDING in MariaDB, a simulator credential with its limits out of the
 * way; then one, and three, notification-sender processes send them all. Prints sends/s from the
 * first claim to the last recorded row, latencies, peak RSS, and the simulator's duplicate count.
 * Usage: sender-bench [--messages N] (default 200,000).
 */
async function main(): Promise<void> {
  const arg = process.argv.indexOf('--messages');
  const messages = arg > 0 ? Number(process.argv[arg + 1]) : 200_000;
  if (!Number.isInteger(messages) || messages < CAMPAIGNS * BATCH)
    throw new Error(`--messages needs an integer of at least ${CAMPAIGNS * BATCH}`);
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  process.env['UMS_TEST_LOG_DIR'] = join(outDir, 'logs');

  // Before anything starts: the calibration wants an idle machine.
  const probeDb = await createTestDatabase('sender_bench_host');
  const host = await hostFigures(probeDb.settings).finally(() => probeDb.drop());
  say(describeHost(host));

  const broker = await startBenchKafka(
    join(workspaceRoot(), '.cache', 'kafka', `sender-bench-${process.pid}`),
  );
  try {
    const rounds: RoundFigures[] = [];
    for (const replicas of [1, 3]) {
      say(`${replicas} sender replica(s), ${messages.toLocaleString('en')} messages`);
      const figures = await round(replicas, messages, host, broker);
      rounds.push(figures);
      say(
        `${replicas} replica(s): ${figures.sendsPerSecond.toLocaleString('en')} sends/s ` +
          `(${figures.seconds} s); claim -> recorded p50 ${figures.claimToRecordedMs.p50} ms, p99 ${figures.claimToRecordedMs.p99} ms; ` +
          `batch p50 ${figures.batchMs.p50} ms, p99 ${figures.batchMs.p99} ms; sender peak RSS ${figures.senderPeakRssMb.join(', ')} MB; ` +
          `simulator accepted ${figures.simulatorAccepted}, duplicates ${figures.duplicates}`,
      );
      say(`cpu: ${JSON.stringify(figures.cpu)}`);
    }
    const file = join(outDir, 'sender-bench.json');
    writeFileSync(file, `${JSON.stringify({ rounds, host, at: new Date().toISOString() }, null, 2)}\n`);
    say(`figures written to ${file}`);
  } finally {
    await broker.stop();
  }
}

async function round(
  replicas: number,
  messages: number,
  host: HostFigures,
  broker: BenchKafka,
): Promise<RoundFigures> {
  const db = await createTestDatabase(`sender_bench_${replicas}`);
  const ds = createDataSource(db.settings);
  const processes: ServiceProcess[] = [];
  await ds.initialize();
  try {
    await runPendingMigrations(ds);
    const namespace = `bench-${randomBytes(3).toString('hex')}`;
    const names = new KafkaNames(namespace);
    const kafka = benchKafkaClient('sender-bench');
    await ensureTopics(kafka, AllTopics, broker.replication, names);
    const env = serviceEnv(db.settings.database, namespace);
    const simulatorProcess = await startServiceProcess({
      app: 'provider-simulator',
      env: { ...env, LOG_LEVEL: 'error' },
    });
    processes.push(simulatorProcess);
    const simulator = new SimulatorClient(simulatorProcess.url);
    await simulator.putCredential('cred_bench', { provider: 'simulator', callbacks: { enabled: false } });
    await insertSimulatorCredential(db.settings, {
      id: 'cred_bench',
      tenantId: 'bench',
      baseUrl: simulator.url,
      ceilingPerSec: 1_000_000,
      floorPerSec: 1_000_000,
    });
    say('writing message rows and publishing their batches');
    await publishBacklog(ds, kafka, names, messages);

    // Started before the replicas: the first one ready sends while the others still start.
    const cpu = new CpuMeter({
      'provider-simulator': simulatorProcess.process.pid,
      ...broker.pids,
      [databaseLabel(host)]: databaseServerPid(db.settings.port),
      redis: findProcess('redis-server'),
      'bench driver': process.pid,
    });
    cpu.start();
    const started = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        startServiceProcess({
          app: 'notification-sender',
          instance: `bench-${i}`,
          env: { ...env, LOG_LEVEL: 'warn', RATE_LIMIT_KEY_PREFIX: `bench:${namespace}:` },
        }),
      ),
    );
    processes.push(...started);
    started.forEach((s, i) => cpu.add(`notification-sender-${i}`, s.process.pid));
    await waitUntil('every message recorded', async () => (await sentCount(ds)) >= messages, {
      timeoutMs: 1_800_000,
      intervalMs: 500,
      abortIf: () => started.map((s) => s.process.exitedUnexpectedly()).find((r) => r !== undefined),
    });
    const cpuUsed = cpu.stop();

    const [span] = (await ds.query(
      `SELECT TIMESTAMPDIFF(MICROSECOND, MIN(claimed_at), MAX(sent_at)) AS us FROM messages`,
    )) as { us: number | string }[];
    const seconds = Number(span?.us) / 1e6;
    const latencies = (
      (await ds.query(
        `SELECT TIMESTAMPDIFF(MICROSECOND, claimed_at, sent_at) / 1000 AS ms FROM messages`,
      )) as { ms: number | string }[]
    )
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    const batchMs = await batchQuantiles(started);
    const stats = await simulator.stats('cred_bench');
    return {
      replicas,
      messages,
      seconds: Number(seconds.toFixed(2)),
      sendsPerSecond: Math.round(messages / seconds),
      claimToRecordedMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) },
      batchMs,
      senderPeakRssMb: started.map((s) => peakRssMb(s.process.pid) ?? 0),
      simulatorPeakRssMb: peakRssMb(simulatorProcess.process.pid) ?? 0,
      simulatorAccepted: stats.accepted,
      duplicates: stats.duplicates,
      cpu: cpuUsed,
    };
  } finally {
    await Promise.all(processes.map((p) => p.process.stop()));
    await ds.destroy();
    await db.drop();
  }
}

/** Campaigns, a RUNNING run each, PENDING rows (multi-row inserts) and their batches on Kafka. */
async function publishBacklog(
  ds: DataSource,
  kafka: Kafka,
  names: KafkaNames,
  messages: number,
): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const perCampaign = Math.ceil(messages / CAMPAIGNS);
    let written = 0;
    for (let c = 0; c < CAMPAIGNS && written < messages; c++) {
      const campaignId = `cmp_bench_${c}`;
      const count = Math.min(perCampaign, messages - written);
      await ds.query(
        `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
         VALUES (?, 'bench', 'bench', 'sms', 'cred_bench', '{"text":"Hello {{name}}"}', 'now', 'ACTIVE')`,
        [campaignId],
      );
      const run = (await ds.query(
        `INSERT INTO runs (campaign_id, fire_at, state, total, pending, started_at)
         VALUES (?, UTC_TIMESTAMP(3), 'RUNNING', ?, ?, UTC_TIMESTAMP(3))`,
        [campaignId, count, count],
      )) as { insertId: number };
      const runId = String(run.insertId);
      for (let start = 0; start < count; start += 2_000) {
        const n = Math.min(2_000, count - start);
        const values: unknown[] = [];
        for (let i = 0; i < n; i++) {
          const k = written + start + i;
          values.push(runId, campaignId, k + 1, `+49151${String(10_000_000 + k)}`);
        }
        const inserted = (await ds.query(
          `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
           VALUES ${Array.from({ length: n }, () => `(?, ?, 'bench', ?, 'sms', 'cred_bench', ?, 'bulk', 'PENDING')`).join(', ')}`,
          values,
        )) as { insertId: number };
        // Consecutive auto-increment ids for one multi-row insert (innodb_autoinc_lock_mode 1 or 2 with no interleaving).
        const firstId = Number(inserted.insertId);
        const batches: MessageBatchV1[] = [];
        for (let b = 0; b < n; b += BATCH) {
          const items = Array.from({ length: Math.min(BATCH, n - b) }, (_, i) => ({
            messageId: String(firstId + b + i),
            recipient: `+49151${String(10_000_000 + written + start + b + i)}`,
            variables: { name: `R${written + start + b + i}` },
          }));
          batches.push({
            batchId: `bench-${runId}-${start + b}`,
            lane: SendLane.Bulk,
            tenantId: 'bench',
            campaignId,
            runId,
            seq: (start + b) / BATCH,
            leaseEpoch: 1,
            credentialId: 'cred_bench',
            channel: Channel.Sms,
            items,
            createdAt: new Date().toISOString(),
          });
        }
        await producer.send({
          topic: names.topic(Topics.batches.name),
          acks: -1,
          messages: batches.map((batch) => ({ key: batch.campaignId, value: JSON.stringify(batch) })),
        });
      }
      written += count;
    }
  } finally {
    await producer.disconnect();
  }
}

async function sentCount(ds: DataSource): Promise<number> {
  const [row] = (await ds.query('SELECT COALESCE(SUM(sent), 0) AS n FROM runs')) as { n: number | string }[];
  return Number(row?.n);
}

/** p50 and p99 (bucket upper bounds) of ums_sender_batch_seconds over every replica. */
async function batchQuantiles(senders: readonly ServiceProcess[]): Promise<{ p50: number; p99: number }> {
  const buckets = new Map<number, number>();
  for (const sender of senders) {
    const text = await (await fetch(`${sender.managementUrl}/metrics`)).text();
    for (const match of text.matchAll(
      /^ums_sender_batch_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\} (\d+)$/gm,
    )) {
      const le = match[1] === '+Inf' ? Infinity : Number(match[1]);
      buckets.set(le, (buckets.get(le) ?? 0) + Number(match[2]));
    }
  }
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  const at = (q: number): number => {
    const bound = sorted.find(([, count]) => count >= q * total)?.[0] ?? Infinity;
    return Number.isFinite(bound) ? Math.round(bound * 1000) : -1;
  };
  return { p50: at(0.5), p99: at(0.99) };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1));
}

function say(line: string): void {
  process.stdout.write(`[sender-bench] ${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `sender bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
