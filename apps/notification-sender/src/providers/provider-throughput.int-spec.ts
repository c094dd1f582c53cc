import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { Channel, Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import type { OutgoingMessage } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { SimulatorAdapter } from './simulator.adapter';
import { credentialFor, message, testHttpClient } from './test/provider-fixtures';
import { WhatsAppCloudAdapter } from './whatsapp-cloud.adapter';

jest.setTimeout(180_000);

// A minimal fast provider in its own thread (its own core), answering the simulator's bulk shape
// and the WhatsApp Cloud API shape.
const SERVER_SOURCE = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    let answer;
    if (req.url === '/sim/v1/messages') {
      answer = { results: body.messages.map((m) => ({ messageId: m.messageId, status: 'accepted', providerMessageId: 'sim-' + m.messageId })) };
    } else {
      answer = { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: 'wamid.' + body.biz_opaque_callback_data }] };
    }
    const text = JSON.stringify(answer);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/**
 * Benchmark, not a timing assertion: prints messages per second through the simulator adapter
 * (bulk requests of 1,000) and the WhatsApp adapter (one request per message, 64 in flight)
 * against a local server, and checks every message was accepted.
 */
describe('provider adapter throughput (benchmark, prints figures)', () => {
  let worker: Worker;
  let baseUrl: string;
  let http: ProviderHttpClient;
  let concurrency: CredentialConcurrency;

  beforeAll(async () => {
    worker = new Worker(SERVER_SOURCE, { eval: true });
    const port = await new Promise<number>((resolve) => worker.once('message', resolve));
    baseUrl = `http://127.0.0.1:${port}`;
    const client = testHttpClient({
      PROVIDER_HTTP_CONNECTIONS: '128',
      PROVIDER_CONCURRENCY_PER_CREDENTIAL: '64',
    });
    http = client.http;
    concurrency = new CredentialConcurrency(client.config);
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await worker?.terminate();
  });

  const messages = (count: number, channel: Channel, offset: number): OutgoingMessage[] =>
    Array.from({ length: count }, (_, i) =>
      message(String(offset + i), channel, `+4915${String(offset + i).padStart(9, '0')}`, {
        text: `Hello number ${i}, your code is ${offset + i}`,
      }),
    );

  async function measure(
    label: string,
    rounds: number,
    perRound: number,
    send: (batch: OutgoingMessage[]) => Promise<{ kind: string }[]>,
    channel: Channel,
  ): Promise<void> {
    // Warm-up: connections, JIT.
    await send(messages(Math.min(perRound, 2000), channel, 900_000_000));
    let accepted = 0;
    const started = performance.now();
    for (let round = 0; round < rounds; round++) {
      const outcomes = await send(messages(perRound, channel, round * perRound));
      accepted += outcomes.filter((o) => o.kind === 'accepted').length;
    }
    const seconds = (performance.now() - started) / 1000;
    expect(accepted).toBe(rounds * perRound);
    process.stdout.write(
      `[bench] ${label}: ${accepted} messages in ${seconds.toFixed(2)} s = ${Math.round(accepted / seconds)} messages/s\n`,
    );
  }

  it('reference: bare undici Pool requests with the same bodies, 64 in flight', async () => {
    // What the machine gives right now without the adapter, to read the adapter figures against.
    const pool = new Pool(baseUrl, { connections: 128 });
    const total = 50_000;
    let next = 0;
    let ok = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < total) {
          const id = next++;
          const response = await pool.request({
            method: 'POST',
            path: '/v21.0/1234567890/messages',
            headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
            body: JSON.stringify({
              to: String(id),
              type: 'text',
              text: { body: 'hi' },
              biz_opaque_callback_data: String(id),
            }),
          });
          await response.body.text();
          if (response.statusCode === 200) ok++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await pool.close();
    expect(ok).toBe(total);
    process.stdout.write(
      `[bench] bare undici Pool: ${total} requests in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)} requests/s\n`,
    );
  });

  it('simulator adapter, bulk requests of 1,000', async () => {
    const adapter = new SimulatorAdapter(http, concurrency);
    const credential = credentialFor(Provider.Simulator, { baseUrl }, 'bench-key', { id: 'cred_bench_sim' });
    // Rounds of 10,000 messages: 10 bulk requests of 1,000 in flight at once.
    await measure(
      'simulator adapter (bulk 1000)',
      10,
      10_000,
      (batch) => adapter.send(credential, batch),
      Channel.Sms,
    );
  });

  it('WhatsApp adapter, one request per message, 64 in flight', async () => {
    const adapter = new WhatsAppCloudAdapter(http, concurrency);
    const credential = credentialFor(
      Provider.WhatsAppCloud,
      { baseUrl, phoneNumberId: '1234567890' },
      'bench-token',
      { id: 'cred_bench_wa', channel: Channel.WhatsApp },
    );
    await measure(
      'whatsapp adapter (single, concurrency 64)',
      10,
      5_000,
      (batch) => adapter.send(credential, batch),
      Channel.WhatsApp,
    );
  });
});
