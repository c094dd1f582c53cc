import { Channel, FailureReason, Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import type { OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { type Answer, closedPort, FakeProviderServer, type Reply } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient } from './test/provider-fixtures';
import { WhatsAppCloudAdapter } from './whatsapp-cloud.adapter';

jest.setTimeout(30_000);

const graphError = (status: number, code: number, text: string): Answer => ({
  status,
  body: { error: { message: text, type: 'OAuthException', code, error_subcode: 2494055, fbtrace_id: 'AbC' } },
});

/** The real Cloud API answer to a send, naming the message by a wamid derived from our id. */
function accepted(body: string): Reply {
  const sent = JSON.parse(body) as { to: string; biz_opaque_callback_data: string };
  return {
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [{ input: sent.to, wa_id: sent.to }],
      messages: [{ id: `wamid.${sent.biz_opaque_callback_data}` }],
    },
  };
}

const retryable = (o: SendOutcome) => (o.kind === 'retryable' ? o : undefined);

describe('WhatsAppCloudAdapter (local HTTP server with Cloud API answers)', () => {
  let server: FakeProviderServer;
  let http: ProviderHttpClient;
  let adapter: WhatsAppCloudAdapter;
  const credentialAt = (baseUrl: string, id = 'cred_wa') =>
    credentialFor(
      Provider.WhatsAppCloud,
      { baseUrl, phoneNumberId: '1234567890', apiVersion: 'v21.0' },
      'wa-token',
      { id, channel: Channel.WhatsApp },
    );
  const wa = (id: string, recipient = `+4915100000${id}`): OutgoingMessage =>
    message(id, Channel.WhatsApp, recipient, { text: `hello ${id}` });

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    const client = testHttpClient({
      PROVIDER_HTTP_TIMEOUT_MS: '300',
      PROVIDER_CONCURRENCY_PER_CREDENTIAL: '4',
    });
    http = client.http;
    adapter = new WhatsAppCloudAdapter(http, new CredentialConcurrency(client.config));
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await server?.stop();
  });

  beforeEach(() => server.reset());

  it('sends text and template messages with the token and our id as callback data', async () => {
    server.handler = (request) => accepted(request.body);
    const outcomes = await adapter.send(credentialAt(server.url), [
      wa('101'),
      message('102', Channel.WhatsApp, '+4915100000102', {
        templateName: 'order_ready',
        templateLanguage: 'en_US',
        templateParameters: ['Ann', '#17'],
      }),
    ]);
    expect(outcomes).toEqual([
      { messageId: '101', kind: 'accepted', providerMessageId: 'wamid.101' },
      { messageId: '102', kind: 'accepted', providerMessageId: 'wamid.102' },
    ]);
    expect(server.received).toHaveLength(2);
    const byId = new Map(
      server.received.map((r) => [
        (JSON.parse(r.body) as { biz_opaque_callback_data: string }).biz_opaque_callback_data,
        r,
      ]),
    );
    const text = byId.get('101');
    expect(text?.method).toBe('POST');
    expect(text?.url).toBe('/v21.0/1234567890/messages');
    expect(text?.headers['authorization']).toBe('Bearer wa-token');
    expect(text?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(text?.body ?? '')).toMatchObject({
      to: '4915100000101',
      type: 'text',
      text: { body: 'hello 101' },
    });
    expect(JSON.parse(byId.get('102')?.body ?? '')).toMatchObject({
      type: 'template',
      template: {
        name: 'order_ready',
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ann' },
              { type: 'text', text: '#17' },
            ],
          },
        ],
      },
    });
  });

  it('classifies each error class of the Cloud API', async () => {
    const replies: Record<string, Reply> = {
      '4915100000001': graphError(400, 131026, 'Message undeliverable'),
      '4915100000002': graphError(401, 190, 'Error validating access token'),
      '4915100000003': graphError(500, 131000, 'Something went wrong'),
      '4915100000004': { status: 502, body: '<html>Bad Gateway</html>' },
      '4915100000005': graphError(
        400,
        131056,
        '(#131056) (Business Account, Consumer Account) pair rate limit hit',
      ),
      '4915100000006': graphError(400, 131047, 'Re-engagement message'),
      '4915100000007': graphError(400, 131050, 'User stopped marketing messages'),
    };
    server.handler = (request) => replies[(JSON.parse(request.body) as { to: string }).to] ?? { status: 418 };
    const outcomes = await adapter.send(
      credentialAt(server.url),
      ['1', '2', '3', '4', '5', '6', '7'].map((i) => wa(i, `+491510000000${i}`)),
    );
    expect(outcomes.map((o) => (o.kind === 'accepted' ? o.kind : [o.kind, o.reason, o.code]))).toEqual([
      ['permanent', FailureReason.InvalidRecipient, '131026'],
      ['permanent', FailureReason.Rejected, '190'],
      ['retryable', FailureReason.ProviderError, '131000'],
      ['retryable', FailureReason.ProviderError, 'HTTP_502'],
      ['retryable', FailureReason.Throttled, '131056'],
      ['permanent', FailureReason.Expired, '131047'],
      ['permanent', FailureReason.OptedOut, '131050'],
    ]);
    expect(outcomes[0]).toMatchObject({ detail: 'Message undeliverable' });
    // None of these says the credential is overloaded, so every message was tried.
    expect(server.received).toHaveLength(7);
    expect(outcomes.every((o) => retryable(o)?.congestion !== true)).toBe(true);
  });

  it('turns 429 with Retry-After into congestion and does not send the rest of the batch', async () => {
    server.handler = () => ({
      ...graphError(429, 130429, 'Rate limit hit'),
      headers: { 'retry-after': '7' },
    });
    const outcomes = await adapter.send(
      credentialAt(server.url),
      Array.from({ length: 12 }, (_, i) => wa(String(200 + i))),
    );
    const attempted = outcomes.filter((o) => retryable(o)?.code === '130429');
    const skipped = outcomes.filter((o) => retryable(o)?.code === 'NOT_ATTEMPTED');
    expect(attempted.length).toBeGreaterThanOrEqual(1);
    expect(attempted.length + skipped.length).toBe(12);
    expect(server.received).toHaveLength(attempted.length);
    expect(attempted[0]).toMatchObject({
      reason: FailureReason.Throttled,
      congestion: true,
      retryAfterMs: 7000,
      ambiguous: false,
    });
    expect(
      skipped.every((o) => retryable(o)?.congestion === false && retryable(o)?.retryAfterMs === 7000),
    ).toBe(true);
  });

  it('reports a server that never answers as a possibly-sent timeout and congestion', async () => {
    server.handler = () => 'hang';
    const [outcome] = await adapter.send(credentialAt(server.url), [wa('301')]);
    expect(outcome).toMatchObject({
      messageId: '301',
      kind: 'retryable',
      reason: FailureReason.Timeout,
      code: 'UND_ERR_HEADERS_TIMEOUT',
      congestion: true,
      ambiguous: true,
    });
  });

  it('reports a dropped connection as a possibly-sent network error', async () => {
    server.handler = () => 'reset';
    const [outcome] = await adapter.send(credentialAt(server.url), [wa('302')]);
    expect(outcome).toMatchObject({ kind: 'retryable', reason: FailureReason.NetworkError, ambiguous: true });
  });

  it('reports a refused connection as a network error that sent nothing', async () => {
    const outcomes = await adapter.send(
      credentialAt(`http://127.0.0.1:${await closedPort()}`, 'cred_wa_closed'),
      [wa('303'), wa('304')],
    );
    expect(outcomes[0]).toMatchObject({
      messageId: '303',
      kind: 'retryable',
      reason: FailureReason.NetworkError,
      code: 'ECONNREFUSED',
      ambiguous: false,
    });
    expect(outcomes.every((o) => o.kind === 'retryable' && o.reason === FailureReason.NetworkError)).toBe(
      true,
    );
  });

  it('keeps at most PROVIDER_CONCURRENCY_PER_CREDENTIAL requests in flight over concurrent batches', async () => {
    server.handler = async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return accepted(request.body);
    };
    const credential = credentialAt(server.url, 'cred_wa_limit');
    const batches = await Promise.all(
      [0, 1, 2].map((b) =>
        adapter.send(
          credential,
          Array.from({ length: 10 }, (_, i) => wa(String(400 + b * 10 + i))),
        ),
      ),
    );
    expect(batches.flat().every((o) => o.kind === 'accepted')).toBe(true);
    expect(server.received).toHaveLength(30);
    expect(server.maxInFlight).toBe(4);
  });
});
