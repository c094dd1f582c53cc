import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoopbackSubscriber } from '@ums/testing';
import { signWebhook, webhookSecretKey, generateWebhookSecret } from '@ums/domain';
import { loadConfig } from '@ums/platform';
import { DeliveriesConfig } from './deliveries.config';
import { SubscriberHttpClient } from './subscriber-http.client';

jest.setTimeout(30_000);

describe('SubscriberHttpClient (real loopback subscribers)', () => {
  let client: SubscriberHttpClient;
  let target: LoopbackSubscriber;
  let other: LoopbackSubscriber;
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ type: 'message.status', data: { ok: true } });
  const headers = (): ReturnType<typeof signWebhook> =>
    signWebhook([webhookSecretKey(secret)], 'evt_ssrf', Date.now() / 1000, body);

  beforeAll(async () => {
    client = new SubscriberHttpClient(loadConfig(DeliveriesConfig, { WEBHOOK_TIMEOUT_MS: '1000' }));
    target = await LoopbackSubscriber.start();
    other = await LoopbackSubscriber.start();
    target.secret = secret;
    other.secret = secret;
  });

  afterAll(async () => {
    await client.onApplicationShutdown();
    await Promise.all([target.stop(), other.stop()]);
  });

  beforeEach(() => {
    target.mode = { kind: 'ok' };
  });

  it('delivers to an internal loopback subscriber with a signature the reference verifier accepts', async () => {
    const before = target.received.length;
    await expect(client.post(target.url(), true, headers(), body)).resolves.toEqual({
      kind: 'delivered',
      status: 204,
    });
    expect(target.received).toHaveLength(before + 1);
    expect(target.received[before]?.validSignature).toBe(true);
  });

  it.each([
    ['loopback literal', () => `https://127.0.0.1:${target.port}/hook`],
    ['private 10.x', () => 'https://10.0.0.1/hook'],
    ['cloud metadata', () => 'https://169.254.169.254/latest/meta-data'],
    ['a name resolving to loopback', () => `https://localhost:${target.port}/hook`],
    ['IPv6 loopback', () => `https://[::1]:${target.port}/hook`],
  ])('refuses a public subscriber at %s at connect time, before any connection', async (_label, url) => {
    const connections = target.connections;
    const result = await client.post(url(), false, headers(), body);
    expect(result).toMatchObject({ kind: 'failed', refused: true });
    expect(result.kind === 'failed' ? result.error : '').toMatch(/^ADDRESS_NOT_PUBLIC/);
    expect(target.connections).toBe(connections);
  });

  it('does not follow a redirect to loopback: the 3xx is a failed attempt and the target sees nothing', async () => {
    const seenByOther = other.received.length;
    target.mode = { kind: 'status', status: 302, headers: { location: other.url('/internal') } };
    await expect(client.post(target.url(), true, headers(), body)).resolves.toMatchObject({
      kind: 'failed',
      status: 302,
    });
    target.mode = { kind: 'status', status: 307, headers: { location: other.url('/internal') } };
    await expect(client.post(target.url(), true, headers(), body)).resolves.toMatchObject({
      kind: 'failed',
      status: 307,
    });
    expect(other.received).toHaveLength(seenByOther);
  });

  it('times out a subscriber that never answers, and reads Retry-After and 410', async () => {
    target.mode = { kind: 'hang' };
    const started = Date.now();
    const result = await client.post(target.url(), true, headers(), body);
    expect(result).toMatchObject({ kind: 'failed', error: expect.stringMatching(/^TIMEOUT: /) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(3_000);
    // A 200 at once, then a byte every 100 ms: no phase times out, the attempt as a whole is cut off
    // (the 2xx counts; the body is not ours to read).
    target.mode = { kind: 'trickle', everyMs: 100 };
    const trickleStarted = Date.now();
    await expect(client.post(target.url(), true, headers(), body)).resolves.toEqual({
      kind: 'delivered',
      status: 200,
    });
    expect(Date.now() - trickleStarted).toBeGreaterThanOrEqual(900);
    expect(Date.now() - trickleStarted).toBeLessThan(3_000);
    target.mode = { kind: 'status', status: 429, headers: { 'retry-after': '12' } };
    await expect(client.post(target.url(), true, headers(), body)).resolves.toMatchObject({
      kind: 'failed',
      status: 429,
      retryAfterMs: 12_000,
    });
    target.mode = { kind: 'status', status: 410 };
    await expect(client.post(target.url(), true, headers(), body)).resolves.toEqual({
      kind: 'gone',
      status: 410,
    });
  });

  it('counts an answer by its status and drops its body: a small one keeps the connection, a huge one closes it', async () => {
    let closed = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        // Whole answers of 1 KiB and 1 MiB: only the first is read to its end (the limit is 64 KiB).
        const size = req.url === '/huge' ? 1_048_576 : 1_024;
        res.writeHead(req.url === '/huge' ? 202 : 200, { 'content-length': String(size) });
        res.end(Buffer.alloc(size, 97));
      });
    });
    server.on('connection', (socket) => socket.on('close', () => closed++));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 3; i++) {
        await expect(client.post(`${base}/small`, true, headers(), body)).resolves.toEqual({
          kind: 'delivered',
          status: 200,
        });
      }
      expect(closed).toBe(0);
      await expect(client.post(`${base}/huge`, true, headers(), body)).resolves.toEqual({
        kind: 'delivered',
        status: 202,
      });
      const deadline = Date.now() + 5_000;
      while (closed === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(closed).toBe(1);
      await expect(client.post(`${base}/small`, true, headers(), body)).resolves.toEqual({
        kind: 'delivered',
        status: 200,
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
