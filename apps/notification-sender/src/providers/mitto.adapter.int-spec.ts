import { Channel, FailureReason, Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import { MittoAdapter } from './mitto.adapter';
import type { OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { closedPort, FakeProviderServer } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient } from './test/provider-fixtures';

jest.setTimeout(30_000);

interface MittoBulk {
  from: string;
  messages: { to: string; text: string; reference: string }[];
}

describe('MittoAdapter (local HTTP server with Mitto bulk answers)', () => {
  let server: FakeProviderServer;
  let http: ProviderHttpClient;
  let adapter: MittoAdapter;
  const credentialAt = (baseUrl: string, id = 'cred_mitto') =>
    credentialFor(Provider.Mitto, { baseUrl, from: 'ACME' }, 'mitto-api-key', { id });
  const sms = (n: number): OutgoingMessage =>
    message(String(n), Channel.Sms, `+49151${String(n).padStart(7, '0')}`, { text: `t${n}` });

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    const client = testHttpClient({ PROVIDER_HTTP_TIMEOUT_MS: '300' });
    http = client.http;
    adapter = new MittoAdapter(http, new CredentialConcurrency(client.config));
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await server?.stop();
  });

  beforeEach(() => server.reset());

  it('sends 2,500 messages in requests of at most 1,000 with the API key, classifying each item alone', async () => {
    // Every 7th number is invalid, every 11th throttled; the rest accepted.
    server.handler = (request) => {
      const bulk = JSON.parse(request.body) as MittoBulk;
      return {
        status: 200,
        body: {
          results: bulk.messages.map((m) => {
            const n = Number(m.reference);
            if (n % 7 === 0)
              return {
                reference: m.reference,
                status: 'rejected',
                code: 'INVALID_NUMBER',
                message: 'invalid',
              };
            if (n % 11 === 0)
              return { reference: m.reference, status: 'rejected', code: 'THROTTLED', message: 'slow' };
            return { reference: m.reference, status: 'accepted', id: `mitto-${m.reference}` };
          }),
        },
      };
    };
    const messages = Array.from({ length: 2500 }, (_, i) => sms(i + 1));
    const outcomes = await adapter.send(credentialAt(server.url), messages);
    expect(server.received.map((r) => (JSON.parse(r.body) as MittoBulk).messages.length).sort()).toEqual([
      1000, 1000, 500,
    ]);
    for (const request of server.received) {
      expect(request.url).toBe('/sms/bulk');
      expect(request.headers['x-mitto-api-key']).toBe('mitto-api-key');
      expect((JSON.parse(request.body) as MittoBulk).from).toBe('ACME');
    }
    const first = JSON.parse(server.received[0]?.body ?? '') as MittoBulk;
    expect(first.messages[0]).toEqual({ to: '+491510000001', text: 't1', reference: '1' });
    expect(outcomes.map((o) => o.messageId)).toEqual(messages.map((m) => m.messageId));
    const expected = (n: number): Partial<SendOutcome> =>
      n % 7 === 0
        ? { kind: 'permanent', reason: FailureReason.InvalidRecipient, code: 'INVALID_NUMBER' }
        : n % 11 === 0
          ? { kind: 'retryable', reason: FailureReason.Throttled, code: 'THROTTLED', congestion: true }
          : { kind: 'accepted', providerMessageId: `mitto-${n}` };
    outcomes.forEach((outcome, i) => expect(outcome).toMatchObject(expected(i + 1)));
  });

  it('retries only the items that failed: a partial answer leaves the others accepted', async () => {
    server.handler = (request) => {
      const bulk = JSON.parse(request.body) as MittoBulk;
      return {
        status: 200,
        body: {
          results: bulk.messages.map((m) =>
            m.reference === '2'
              ? { reference: m.reference, status: 'rejected', code: 'TEMPORARY_ERROR', message: 'try later' }
              : { reference: m.reference, status: 'accepted', id: `x${m.reference}` },
          ),
        },
      };
    };
    const outcomes = await adapter.send(credentialAt(server.url), [sms(1), sms(2), sms(3)]);
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'retryable', 'accepted']);
    expect(outcomes[1]).toMatchObject({
      reason: FailureReason.ProviderError,
      code: 'TEMPORARY_ERROR',
      congestion: false,
    });
  });

  it('applies a whole-request 429 with Retry-After to its items and sends no further chunk', async () => {
    server.handler = () => ({
      status: 429,
      headers: { 'retry-after': '9' },
      body: { code: 'THROTTLED', message: 'Too many requests' },
    });
    const credential = credentialAt(server.url, 'cred_mitto_429');
    const outcomes = await adapter.send(
      credential,
      Array.from({ length: 1500 }, (_, i) => sms(i + 1)),
    );
    expect(
      outcomes.every(
        (o) => o.kind === 'retryable' && o.reason === FailureReason.Throttled && o.retryAfterMs === 9000,
      ),
    ).toBe(true);
    // The chunks run concurrently, so both may have been sent; what was not sent says so.
    const sent = server.received.reduce((n, r) => n + (JSON.parse(r.body) as MittoBulk).messages.length, 0);
    expect(outcomes.filter((o) => o.kind === 'retryable' && o.code === 'THROTTLED')).toHaveLength(sent);
  });

  it('retries a 5xx, and reports timeouts and refused connections', async () => {
    server.handler = () => ({ status: 503, body: 'Service Unavailable' });
    expect((await adapter.send(credentialAt(server.url), [sms(1)]))[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: 'HTTP_503',
      congestion: true,
    });
    server.handler = () => 'hang';
    expect(
      (await adapter.send(credentialAt(server.url), [sms(2), sms(3)])).map(
        (o) => o.kind === 'retryable' && o.code,
      ),
    ).toEqual(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
    const closed = credentialAt(`http://127.0.0.1:${await closedPort()}`, 'cred_mitto_closed');
    expect((await adapter.send(closed, [sms(4)]))[0]).toMatchObject({
      code: 'ECONNREFUSED',
      ambiguous: false,
    });
  });

  it('rejects a bad API key for every item, permanently', async () => {
    server.handler = () => ({
      status: 401,
      body: { code: 'UNAUTHORIZED', message: 'Missing or invalid X-Mitto-API-Key' },
    });
    const outcomes = await adapter.send(credentialAt(server.url), [sms(1), sms(2)]);
    expect(outcomes).toEqual([
      {
        messageId: '1',
        kind: 'permanent',
        reason: FailureReason.Rejected,
        code: 'UNAUTHORIZED',
        detail: 'Missing or invalid X-Mitto-API-Key',
        request: 0,
      },
      {
        messageId: '2',
        kind: 'permanent',
        reason: FailureReason.Rejected,
        code: 'UNAUTHORIZED',
        detail: 'Missing or invalid X-Mitto-API-Key',
        request: 0,
      },
    ]);
  });
});
