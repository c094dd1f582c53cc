import { Channel, FailureReason, Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import type { OutgoingMessage } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { type Answer, closedPort, FakeProviderServer } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient, TWILIO_SID } from './test/provider-fixtures';
import { TwilioAdapter } from './twilio.adapter';

jest.setTimeout(30_000);

const twilioError = (status: number, code: number, text: string): Answer => ({
  status,
  body: { code, message: text, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
});

describe('TwilioAdapter (local HTTP server with Twilio answers)', () => {
  let server: FakeProviderServer;
  let http: ProviderHttpClient;
  let adapter: TwilioAdapter;
  const credentialAt = (baseUrl: string, id = 'cred_twilio') =>
    credentialFor(
      Provider.Twilio,
      {
        baseUrl,
        accountSid: TWILIO_SID,
        from: '+15005550006',
        statusCallbackUrl: 'https://ingest.example.com/v1/twilio',
      },
      'twilio-auth-token',
      { id },
    );
  const sms = (id: string, recipient = `+4915100000${id}`): OutgoingMessage =>
    message(id, Channel.Sms, recipient, { text: `Hello ${id} & welcome` });

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    const client = testHttpClient({
      PROVIDER_HTTP_TIMEOUT_MS: '300',
      PROVIDER_CONCURRENCY_PER_CREDENTIAL: '4',
    });
    http = client.http;
    adapter = new TwilioAdapter(http, new CredentialConcurrency(client.config));
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await server?.stop();
  });

  beforeEach(() => server.reset());

  it('posts a form with Basic auth and a StatusCallback carrying our id, and reads the sid', async () => {
    server.handler = (request) => {
      const form = new URLSearchParams(request.body);
      return {
        status: 201,
        body: { sid: `SM${form.get('To')?.slice(-3)}`, status: 'queued', to: form.get('To') },
      };
    };
    const outcomes = await adapter.send(credentialAt(server.url), [sms('101'), sms('102')]);
    expect(outcomes).toEqual([
      { messageId: '101', kind: 'accepted', providerMessageId: 'SM101' },
      { messageId: '102', kind: 'accepted', providerMessageId: 'SM102' },
    ]);
    const request = server.received.find((r) => new URLSearchParams(r.body).get('To') === '+4915100000101');
    expect(request?.url).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(request?.headers['authorization']).toBe(
      `Basic ${Buffer.from(`${TWILIO_SID}:twilio-auth-token`).toString('base64')}`,
    );
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      To: '+4915100000101',
      From: '+15005550006',
      Body: 'Hello 101 & welcome',
      StatusCallback: 'https://ingest.example.com/v1/twilio?ums_message_id=101',
    });
  });

  it('classifies each error class of Twilio', async () => {
    const replies: Record<string, Answer> = {
      '+491510000001': twilioError(400, 21211, "The 'To' number is not a valid phone number."),
      '+491510000002': twilioError(400, 21610, 'Attempt to send to unsubscribed recipient'),
      '+491510000003': twilioError(401, 20003, 'Authenticate'),
      '+491510000004': twilioError(500, 20500, 'Internal Server Error'),
      '+491510000005': twilioError(
        400,
        21408,
        'Permission to send an SMS has not been enabled for the region',
      ),
    };
    server.handler = (request) =>
      replies[new URLSearchParams(request.body).get('To') ?? ''] ?? { status: 418 };
    const outcomes = await adapter.send(
      credentialAt(server.url),
      ['1', '2', '3', '4', '5'].map((i) => sms(i, `+49151000000${i}`)),
    );
    expect(outcomes.map((o) => (o.kind === 'accepted' ? o.kind : [o.kind, o.reason, o.code]))).toEqual([
      ['permanent', FailureReason.InvalidRecipient, '21211'],
      ['permanent', FailureReason.OptedOut, '21610'],
      ['permanent', FailureReason.Rejected, '20003'],
      ['retryable', FailureReason.ProviderError, '20500'],
      ['permanent', FailureReason.Blocked, '21408'],
    ]);
    expect(outcomes[0]).toMatchObject({ detail: "The 'To' number is not a valid phone number." });
  });

  it('turns 429 (20429) with Retry-After into congestion and does not send the rest', async () => {
    server.handler = () => ({
      ...twilioError(429, 20429, 'Too Many Requests'),
      headers: { 'retry-after': '3' },
    });
    const outcomes = await adapter.send(
      credentialAt(server.url),
      Array.from({ length: 10 }, (_, i) => sms(String(200 + i))),
    );
    const attempted = outcomes.filter((o) => o.kind === 'retryable' && o.code === '20429');
    expect(attempted[0]).toMatchObject({
      reason: FailureReason.Throttled,
      congestion: true,
      retryAfterMs: 3000,
    });
    expect(server.received).toHaveLength(attempted.length);
    expect(outcomes.filter((o) => o.kind === 'retryable' && o.code === 'NOT_ATTEMPTED')).toHaveLength(
      10 - attempted.length,
    );
  });

  it('reports timeouts and refused connections', async () => {
    server.handler = () => 'hang';
    expect((await adapter.send(credentialAt(server.url), [sms('301')]))[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Timeout,
      congestion: true,
      ambiguous: true,
    });
    const closed = credentialAt(`http://127.0.0.1:${await closedPort()}`, 'cred_twilio_closed');
    expect((await adapter.send(closed, [sms('302')]))[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.NetworkError,
      code: 'ECONNREFUSED',
      ambiguous: false,
    });
  });
});
