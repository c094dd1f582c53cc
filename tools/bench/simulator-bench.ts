import 'reflect-metadata';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServiceProcess, startServiceProcess, workspaceRoot } from '@ums/testing';
import { Pool } from 'undici';

/**
 * Provider-simulator benchmark: how many sends per second the simulator absorbs, measured with
 * an undici Pool from this process (itself a CPU consumer on the same cores, as the sender is).
 * Scenarios: native bulk API (1000 messages per request) and single WhatsApp requests, each
 * without and with status callbacks (posted back to a sink in this process). Every message id
 * is unique, so the simulator's own duplicate count must stay 0.
 *
 * Usage: npm run -s build && node \
 *   dist/tools/bench/simulator-bench.js [--seconds 10] [--url http://127.0.0.1:3005]
 */
interface Scenario {
  readonly name: string;
  readonly credentialId: string;
  readonly bulk: number;
  readonly connections: number;
  readonly inFlight: number;
  readonly callbacks: boolean;
}

interface Figures {
  scenario: string;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  messagesPerSecond: number;
  non2xx: number;
  p50Ms: number;
  p99Ms: number;
  simulator: { accepted: number; duplicates: number; maxPerSecond: number };
  callbacks?: { statusesReceived: number; statusesPerSecond: number; posts: number };
}

const say = (line: string): void => void process.stdout.write(`[simulator-bench] ${line}\n`);

async function main(): Promise<void> {
  const seconds = Number(argument('--seconds') ?? 10);
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  process.env['UMS_TEST_LOG_DIR'] = join(outDir, 'logs');
  const sink = await startSink();
  let simulator: ServiceProcess | undefined;
  let url = argument('--url');
  if (url === undefined) {
    simulator = await startServiceProcess({
      app: 'provider-simulator',
      env: { LOG_LEVEL: 'error', SIMULATOR_CALLBACK_CONNECTIONS: '16' },
    });
    url = simulator.url;
  }
  const figures: Figures[] = [];
  try {
    const scenarios: Scenario[] = [
      {
        name: 'native bulk x1000',
        credentialId: 'bench-native',
        bulk: 1000,
        connections: 8,
        inFlight: 8,
        callbacks: false,
      },
      {
        name: 'whatsapp single',
        credentialId: 'bench-wa',
        bulk: 1,
        connections: 64,
        inFlight: 128,
        callbacks: false,
      },
      {
        name: 'native bulk x1000 + callbacks',
        credentialId: 'bench-native-cb',
        bulk: 1000,
        connections: 8,
        inFlight: 4,
        callbacks: true,
      },
      {
        name: 'whatsapp single + callbacks',
        credentialId: 'bench-wa-cb',
        bulk: 1,
        connections: 64,
        inFlight: 128,
        callbacks: true,
      },
    ];
    for (const scenario of scenarios) {
      await configure(url, scenario, sink.url);
      const result = await run(url, scenario, seconds, sink);
      figures.push(result);
      say(
        `${scenario.name}: ${result.requestsPerSecond.toLocaleString('en')} req/s, ` +
          `${result.messagesPerSecond.toLocaleString('en')} messages/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ` +
          `non-2xx ${result.non2xx}, simulator accepted ${result.simulator.accepted.toLocaleString('en')} ` +
          `(duplicates ${result.simulator.duplicates}, busiest second ${result.simulator.maxPerSecond.toLocaleString('en')})` +
          (result.callbacks
            ? `, callbacks ${result.callbacks.statusesPerSecond.toLocaleString('en')} statuses/s in ${result.callbacks.posts.toLocaleString('en')} posts`
            : ''),
      );
    }
    const file = join(outDir, 'simulator-bench.json');
    writeFileSync(file, `${JSON.stringify({ figures, at: new Date().toISOString() }, null, 2)}\n`);
    say(`figures written to ${file}`);
  } finally {
    await simulator?.process.stop();
    sink.server.close();
  }
}

async function configure(url: string, scenario: Scenario, sinkUrl: string): Promise<void> {
  const whatsapp = scenario.bulk === 1;
  const body = {
    provider: whatsapp ? 'whatsapp-cloud' : 'simulator',
    ...(whatsapp ? { account: { phoneNumberId: `pn-${scenario.credentialId}` } } : {}),
    secret: 'bench-token',
    callbackUrl: `${sinkUrl}/${scenario.credentialId}`,
    callbackSecret: 'bench-secret',
    callbacks: { enabled: scenario.callbacks, delayMs: 50 },
  };
  const response = await fetch(`${url}/_sim/credentials/${scenario.credentialId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`configure ${scenario.credentialId}: ${response.status} ${await response.text()}`);
}

async function run(url: string, scenario: Scenario, seconds: number, sink: Sink): Promise<Figures> {
  const pool = new Pool(url, { connections: scenario.connections, pipelining: 1 });
  const whatsapp = scenario.bulk === 1;
  const path = whatsapp ? `/v21.0/pn-${scenario.credentialId}/messages` : '/sim/v1/messages';
  const headers = { 'content-type': 'application/json', authorization: 'Bearer bench-token' };
  let nextId = 1;
  const body = (): string => {
    if (whatsapp) {
      const id = nextId++;
      return JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: `49151${String(id).padStart(8, '0')}`,
        type: 'text',
        text: { body: `Hello ${id}, your code is ${id % 10_000}` },
        biz_opaque_callback_data: `${scenario.credentialId}-${id}`,
      });
    }
    const messages = [];
    for (let i = 0; i < scenario.bulk; i++) {
      const id = nextId++;
      messages.push({
        messageId: `${scenario.credentialId}-${id}`,
        to: `+49151${String(id).padStart(8, '0')}`,
        channel: 'sms',
        text: `Hello ${id}, your code is ${id % 10_000}`,
      });
    }
    return JSON.stringify({ credentialId: scenario.credentialId, messages });
  };
  const latencies: number[] = [];
  let requests = 0;
  let non2xx = 0;
  const sinkBefore = { statuses: sink.statuses, posts: sink.posts };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const payload = body();
      const t0 = performance.now();
      const response = await pool.request({ method: 'POST', path, headers, body: payload });
      await response.body.dump();
      latencies.push(performance.now() - t0);
      requests++;
      if (response.statusCode < 200 || response.statusCode >= 300) non2xx++;
    }
  };
  await Promise.all(Array.from({ length: scenario.inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  let callbacks: Figures['callbacks'];
  if (scenario.callbacks) {
    // Give the simulator time to post what is still due, then count what arrived.
    const settleStart = performance.now();
    let last = -1;
    while (sink.statuses !== last && performance.now() - settleStart < 30_000) {
      last = sink.statuses;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const statuses = sink.statuses - sinkBefore.statuses;
    callbacks = {
      statusesReceived: statuses,
      statusesPerSecond: Math.round(statuses / ((performance.now() - started) / 1000)),
      posts: sink.posts - sinkBefore.posts,
    };
  }
  await pool.close();
  const stats = (await (
    await fetch(`${url}/_sim/stats?credentialId=${scenario.credentialId}`)
  ).json()) as Record<string, number>;
  latencies.sort((a, b) => a - b);
  const pick = (q: number): number =>
    Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2));
  return {
    scenario: scenario.name,
    seconds: Number(elapsed.toFixed(2)),
    requests,
    requestsPerSecond: Math.round(requests / elapsed),
    messagesPerSecond: Math.round(((requests - non2xx) * scenario.bulk) / elapsed),
    non2xx,
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
    simulator: {
      accepted: stats['accepted'] ?? 0,
      duplicates: stats['duplicates'] ?? 0,
      maxPerSecond: stats['maxPerSecond'] ?? 0,
    },
    ...(callbacks ? { callbacks } : {}),
  };
}

interface Sink {
  readonly server: Server;
  readonly url: string;
  statuses: number;
  posts: number;
}

/** Receives callbacks and counts statuses (Meta webhooks and native arrays carry many per post). */
async function startSink(): Promise<Sink> {
  const sink = { statuses: 0, posts: 0 } as Sink;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      sink.posts++;
      const text = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(text) as {
        events?: unknown[];
        entry?: { changes?: { value?: { statuses?: unknown[] } }[] }[];
      };
      sink.statuses += parsed.events?.length ?? parsed.entry?.[0]?.changes?.[0]?.value?.statuses?.length ?? 1;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, { server, url: `http://127.0.0.1:${port}` });
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
