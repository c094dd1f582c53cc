import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  AllTopics,
  Channel,
  MessageStatus,
  type MessageStatusV1,
  TENANT_HEADER,
  Topics,
} from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  newOperatorKey,
  runPendingMigrations,
} from '@ums/platform';
import {
  batchEventIds,
  bearer,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  workspaceRoot,
} from '@ums/testing';
import type { Producer } from 'kafkajs';
import { benchKafkaClient, startBenchKafka } from './bench-kafka';
import { CpuMeter, databaseServerPid } from './process-usage';

/**
 * Webhook-dispatcher benchmark: status events on Kafka fanned out by one dispatcher process to one
 * healthy loopback subscriber (signed POSTs through the undici pool, rows in MariaDB). Per scenario:
 * throughput (a backlog of --events drained: deliveries/s) and latency (--rate events/s for --seconds,
 * p50/p99 from publish to receipt). Scenarios: the healthy subscriber alone; with a tombstoned (DEAD)
 * subscriber that matches every event (its deliveries are kept as MISSED); with a subscriber that is
 * down (connection refused on every attempt, never tombstoned here, so every event is also retried).
 *
 * Usage: npm run -s build && node \
 *   dist/tools/bench/dispatcher-bench.js [--events 20000] [--rate 500] [--seconds 10] [--scenarios a,b,c]
 *   [--answer-ms N] (the subscriber answers each request N ms after it arrived; default at once)
 *   [--batch N] (the subscribers take up to N events per request, `maxEventsPerRequest`; default 1)
 *   [--cpu-prof] (a V8 CPU profile of the dispatcher process in tmp/bench/profiles)
 */
interface Figures {
  scenario: string;
  events: number;
  deliveriesPerSecond: number;
  latencyRate: number;
  p50Ms: number;
  p99Ms: number;
  duplicates: number;
  /** CPU per delivery while the backlog drained: the dispatcher process, and the MariaDB server. */
  dispatcherCpuUsPerDelivery: number | null;
  mariadbCpuUsPerDelivery: number | null;
}

const say = (line: string): void => void process.stdout.write(`[dispatcher-bench] ${line}\n`);

class Receiver {
  readonly firstSeen = new Map<string, number>();
  duplicates = 0;
  private constructor(readonly server: Server) {}

  /** `answerMs` > 0 answers each request that much later: a subscriber across a network, or one doing work. */
  static async start(answerMs: number): Promise<Receiver> {
    const server = createServer({ keepAliveTimeout: 60_000 });
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const webhookId = String(req.headers['webhook-id']);
      const batch = webhookId.startsWith('batch_');
      const chunks: Buffer[] = [];
      // A single event's id is its webhook-id; only a batch body is read, for its events' ids.
      if (batch) req.on('data', (chunk: Buffer) => chunks.push(chunk));
      else req.resume();
      req.on('end', () => {
        const at = performance.timeOrigin + performance.now();
        const ids = batch ? batchEventIds(Buffer.concat(chunks).toString('utf8')) : [webhookId];
        for (const id of ids) {
          if (receiver.firstSeen.has(id)) receiver.duplicates++;
          else receiver.firstSeen.set(id, at);
        }
        if (answerMs > 0) setTimeout(() => res.writeHead(204).end(), answerMs);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  count(prefix: string): number {
    let n = 0;
    for (const id of this.firstSeen.keys()) if (id.startsWith(prefix)) n++;
    return n;
  }
}

async function main(): Promise<void> {
  const events = Number(argument('--events') ?? 20_000);
  const rate = Number(argument('--rate') ?? 500);
  const seconds = Number(argument('--seconds') ?? 10);
  const answerMs = Number(argument('--answer-ms') ?? 0);
  const batch = Number(argument('--batch') ?? 1);
  if (!Number.isInteger(batch) || batch < 1 || batch > 500) throw new Error('--batch is 1 to 500');
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  process.env['UMS_TEST_LOG_DIR'] = join(outDir, 'logs');
  const broker = await startBenchKafka(
    join(workspaceRoot(), '.cache', 'kafka', `dispatcher-bench-${process.pid}`),
  );
  const kafka = benchKafkaClient('dispatcher-bench');
  const db = await createTestDatabase('dispatcher_bench');
  const ds = createDataSource(db.settings);
  let dispatcher: ServiceProcess | undefined;
  const receiver = await Receiver.start(answerMs);
  const producer = kafka.producer();
  const figures: Figures[] = [];
  try {
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `bench-${randomBytes(3).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(kafka, AllTopics, broker.replication, names);
    await producer.connect();
    // An operator key of this run only (never printed).
    const operatorKey = newOperatorKey();
    dispatcher = await startServiceProcess({
      app: 'webhook-dispatcher',
      nodeArgs: process.argv.includes('--cpu-prof')
        ? ['--cpu-prof', `--cpu-prof-dir=${join(outDir, 'profiles')}`]
        : [],
      env: {
        ...serviceEnv(db.settings.database, namespace),
        AUTH_OPERATOR_KEY: operatorKey,
        LOG_LEVEL: 'error',
        WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
        WEBHOOK_FAILURE_THRESHOLD: '1000000',
        WEBHOOK_SUBSCRIBER_REFRESH_MS: '500',
      },
    });
    // No scheduler here to make tenant keys: the operator key acts for each tenant (X-Ums-Tenant).
    const api = { url: dispatcher.url, operatorKey };
    say(`subscribers take ${batch === 1 ? 'one event' : `up to ${batch} events`} per request`);
    const scenarios: { name: string; tenant: string; other?: 'dead' | 'down' }[] = [
      { name: 'one healthy subscriber', tenant: 'bench-a' },
      { name: 'healthy + a dead (tombstoned) subscriber', tenant: 'bench-b', other: 'dead' },
      { name: 'healthy + a down subscriber (refused, retried)', tenant: 'bench-c', other: 'down' },
    ];
    const only = (argument('--scenarios') ?? 'a,b,c').split(',');
    // Warm-up: consumer groups joined, JIT and connection pools warm before anything is measured.
    await subscribe(api, 'bench-warm', receiver.url, batch);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (let i = 0; i < 5_000; i += 1_000)
      await publish(producer, names, 'bench-warm', 'warm-', i, i + 1_000);
    await waitFor(() => receiver.count('warm-') >= 5_000, 120_000);
    for (const scenario of scenarios.filter((s) => only.includes(s.tenant.slice(-1)))) {
      await subscribe(api, scenario.tenant, receiver.url, batch);
      if (scenario.other !== undefined) {
        // Port 1 on loopback: nothing listens, every attempt is refused at once.
        const id = await subscribe(api, scenario.tenant, 'http://127.0.0.1:1/hook', batch);
        if (scenario.other === 'dead')
          await ds.query(`UPDATE subscribers SET state = 'DEAD' WHERE id = ?`, [id]);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // every replica's directory has them
      const result = await runScenario(
        scenario.name,
        scenario.tenant,
        events,
        rate,
        seconds,
        producer,
        names,
        receiver,
        {
          dispatcher: dispatcher.process.pid,
          mariadb: databaseServerPid(db.settings.port),
        },
      );
      figures.push(result);
      say(
        `${result.scenario}: ${result.deliveriesPerSecond.toLocaleString('en')} deliveries/s (backlog of ` +
          `${events.toLocaleString('en')}), at ${rate}/s p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, duplicates ${result.duplicates}; ` +
          `CPU per delivery: dispatcher ${result.dispatcherCpuUsPerDelivery ?? '?'} µs, MariaDB ${result.mariadbCpuUsPerDelivery ?? '?'} µs`,
      );
    }
    const file = join(outDir, 'dispatcher-bench.json');
    writeFileSync(file, `${JSON.stringify({ figures, at: new Date().toISOString() }, null, 2)}\n`);
    say(`figures written to ${file}`);
  } finally {
    await producer.disconnect();
    await dispatcher?.process.stop();
    receiver.server.closeAllConnections();
    receiver.server.close();
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
    await broker.stop();
  }
}

/** A subscriber of `tenantId`, made by the operator acting for that tenant. */
async function subscribe(
  dispatcher: { readonly url: string; readonly operatorKey: string },
  tenantId: string,
  target: string,
  batch: number,
): Promise<string> {
  const response = await fetch(`${dispatcher.url}/v1/subscribers`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [TENANT_HEADER]: tenantId,
      ...bearer(dispatcher.operatorKey),
    },
    body: JSON.stringify({
      url: target,
      eventTypes: ['message.status'],
      internal: true,
      maxEventsPerRequest: batch,
    }),
  });
  if (response.status !== 201)
    throw new Error(`subscriber not created: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function runScenario(
  name: string,
  tenant: string,
  events: number,
  rate: number,
  seconds: number,
  producer: Producer,
  names: KafkaNames,
  receiver: Receiver,
  pids: { readonly dispatcher: number | undefined; readonly mariadb: number | undefined },
): Promise<Figures> {
  const duplicatesBefore = receiver.duplicates;
  const cpu = new CpuMeter(pids);
  cpu.start();
  // Throughput: a backlog published at once, drained as fast as the dispatcher goes.
  const backlog = `${tenant}-bulk-`;
  const started = performance.timeOrigin + performance.now();
  for (let i = 0; i < events; i += 1_000) {
    await publish(producer, names, tenant, backlog, i, Math.min(events, i + 1_000));
  }
  await waitFor(() => receiver.count(backlog) >= events, 300_000);
  let last = 0;
  for (const [id, at] of receiver.firstSeen) if (id.startsWith(backlog) && at > last) last = at;
  const deliveriesPerSecond = Math.round(events / ((last - started) / 1000));
  const used = cpu.stop();
  const perDelivery = (label: 'dispatcher' | 'mariadb'): number | null => {
    const figure = used[label];
    return figure === null || figure === undefined ? null : Math.round((figure.cpuSeconds * 1e6) / events);
  };
  const dispatcherCpuUsPerDelivery = perDelivery('dispatcher');
  const mariadbCpuUsPerDelivery = perDelivery('mariadb');

  // Latency: a steady rate well below capacity, publish to receipt.
  const steady = `${tenant}-steady-`;
  const sentAt = new Map<string, number>();
  const perTick = Math.max(1, Math.round(rate / 20));
  const total = rate * seconds;
  for (let i = 0; i < total; i += perTick) {
    const tick = Date.now();
    const now = performance.timeOrigin + performance.now();
    for (let j = i; j < Math.min(total, i + perTick); j++) sentAt.set(`${steady}${j}`, now);
    await publish(producer, names, tenant, steady, i, Math.min(total, i + perTick));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (Date.now() - tick))));
  }
  await waitFor(() => receiver.count(steady) >= total, 120_000);
  const latencies = [...sentAt]
    .map(([id, at]) => (receiver.firstSeen.get(id) ?? at) - at)
    .sort((a, b) => a - b);
  const pick = (q: number): number =>
    Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(1));
  return {
    scenario: name,
    events,
    deliveriesPerSecond,
    latencyRate: rate,
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
    duplicates: receiver.duplicates - duplicatesBefore,
    dispatcherCpuUsPerDelivery,
    mariadbCpuUsPerDelivery,
  };
}

async function publish(
  producer: Producer,
  names: KafkaNames,
  tenantId: string,
  prefix: string,
  from: number,
  to: number,
): Promise<void> {
  const messages = [];
  for (let i = from; i < to; i++) {
    const value: MessageStatusV1 = {
      eventId: `${prefix}${i}`,
      messageId: String(i + 1),
      tenantId,
      campaignId: `cmp-${i % 48}`,
      channel: Channel.Sms,
      recipient: '+4915100000001',
      status: MessageStatus.Delivered,
      occurredAt: new Date().toISOString(),
    };
    messages.push({ key: value.campaignId, value: JSON.stringify(value) });
  }
  await producer.send({ topic: names.topic(Topics.messageStatus.name), acks: -1, messages });
}

async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `dispatcher-bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
