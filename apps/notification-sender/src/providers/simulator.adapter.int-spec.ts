import { Channel, FailureReason, Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import type { OutgoingMessage } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { SimulatorAdapter } from './simulator.adapter';
import { closedPort, FakeProviderServer } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient } from './test/provider-fixtures';

jest.setTimeout(30_000);

interface SimBatch {
  credentialId: string;
  messages: { messageId: string; to: string; channel: string; text: string }[];
}

describe('SimulatorAdapter (local HTTP server with simulator answers)', () => {
  let server: FakeProviderServer;
  let http: ProviderHttpClient;
  let adapter: SimulatorAdapter;
  const credentialAt = (baseUrl: string, id = 'cred_sim') =>
    credentialFor(Provider.Simulator, { baseUrl }, 'sim-key', { id });
  const msg = (n: number, channel = Channel.Sms): OutgoingMessage =>
    message(String(n), channel, `+49151${n}`, { text: `t${n}` });

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    const client = testHttpClient({ PROVIDER_HTTP_TIMEOUT_MS: '300' });
    http = client.http;
    adapter = new SimulatorAdapter(http, new CredentialConcurrency(client.config));
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await server?.stop();
  });

  beforeEach(() => server.reset());

  it('sends up to 1,000 messages per request with the key and reads per-item results', async () => {
    server.handler = (request) => {
      const batch = JSON.parse(request.body) as SimBatch;
      return {
        status: 200,
        body: {
          results: batch.messages.map((m) =>
            Number(m.messageId) % 100 === 0
              ? { messageId: m.messageId, status: 'rejected', code: 'INVALID_NUMBER', retryable: false }
              : { messageId: m.messageId, status: 'accepted', providerMessageId: `sim-${m.messageId}` },
          ),
        },
      };
    };
    const messages = Array.from({ length: 1200 }, (_, i) =>
      msg(i + 1, [Channel.Sms, Channel.WhatsApp, Channel.Email][i % 3]),
    );
    const outcomes = await adapter.send(credentialAt(server.url), messages);
    expect(server.received.map((r) => (JSON.parse(r.body) as SimBatch).messages.length).sort()).toEqual([
      1000, 200,
    ]);
    const [request] = server.received;
    expect(request?.url).toBe('/sim/v1/messages');
    expect(request?.headers['authorization']).toBe('Bearer sim-key');
    expect((JSON.parse(request?.body ?? '') as SimBatch).credentialId).toBe('cred_sim');
    expect(outcomes).toHaveLength(1200);
    expect(outcomes[0]).toEqual({ messageId: '1', kind: 'accepted', providerMessageId: 'sim-1', request: 0 });
    expect(outcomes[99]).toEqual({
      messageId: '100',
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: 'INVALID_NUMBER',
      request: 0,
    });
    expect(outcomes[1_100]).toMatchObject({ messageId: '1101', request: 1 });
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(1188);
  });

  it('turns a 429 with Retry-After into congestion for the whole request', async () => {
    server.handler = () => ({
      status: 429,
      headers: { 'retry-after': '2' },
      body: { error: { code: 'THROTTLED', message: 'Capacity exceeded, retry later', retryAfterSeconds: 2 } },
    });
    const outcomes = await adapter.send(credentialAt(server.url), [msg(1), msg(2)]);
    expect(outcomes).toEqual(
      ['1', '2'].map((messageId) => ({
        messageId,
        kind: 'retryable',
        reason: FailureReason.Throttled,
        code: 'THROTTLED',
        detail: 'Capacity exceeded, retry later',
        retryAfterMs: 2000,
        congestion: true,
        ambiguous: false,
        request: 0,
      })),
    );
  });

  it('retries a 500, and reports timeouts, dropped and refused connections', async () => {
    server.handler = () => ({ status: 500, body: { message: 'injected error' } });
    expect((await adapter.send(credentialAt(server.url), [msg(1)]))[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: 'HTTP_500',
      congestion: false,
    });
    server.handler = () => 'hang';
    expect((await adapter.send(credentialAt(server.url), [msg(2)]))[0]).toMatchObject({
      reason: FailureReason.Timeout,
      ambiguous: true,
      congestion: true,
    });
    server.handler = () => 'reset';
    expect((await adapter.send(credentialAt(server.url), [msg(3)]))[0]).toMatchObject({
      reason: FailureReason.NetworkError,
      ambiguous: true,
    });
    const closed = credentialAt(`http://127.0.0.1:${await closedPort()}`, 'cred_sim_closed');
    expect((await adapter.send(closed, [msg(4)]))[0]).toMatchObject({
      code: 'ECONNREFUSED',
      ambiguous: false,
    });
  });
});
