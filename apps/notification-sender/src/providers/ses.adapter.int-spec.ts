import { Channel, FailureReason, Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import type { OutgoingMessage } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { SesAdapter } from './ses.adapter';
import { type Answer, closedPort, FakeProviderServer } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient } from './test/provider-fixtures';

jest.setTimeout(30_000);

const awsError = (status: number, type: string, text: string): Answer => ({
  status,
  headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/` },
  body: { __type: type, message: text },
});

describe('SesAdapter (local HTTP server with SES v2 answers)', () => {
  let server: FakeProviderServer;
  let http: ProviderHttpClient;
  let adapter: SesAdapter;
  const credentialAt = (baseUrl: string, id = 'cred_ses') =>
    credentialFor(
      Provider.Ses,
      { baseUrl, region: 'eu-central-1', fromAddress: 'news@example.com' },
      'AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      { id, channel: Channel.Email },
    );
  const email = (id: string, recipient = `user${id}@example.org`): OutgoingMessage =>
    message(id, Channel.Email, recipient, { subject: `Hello ${id}`, text: 'Body text' });

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    const client = testHttpClient({
      PROVIDER_HTTP_TIMEOUT_MS: '300',
      PROVIDER_CONCURRENCY_PER_CREDENTIAL: '4',
    });
    http = client.http;
    adapter = new SesAdapter(http, new CredentialConcurrency(client.config));
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await server?.stop();
  });

  beforeEach(() => server.reset());

  it('sends a SigV4-signed SendEmail with our id as an EmailTag and reads the MessageId', async () => {
    server.handler = (request) => {
      const sent = JSON.parse(request.body) as { EmailTags: { Value: string }[] };
      return { status: 200, body: { MessageId: `0100018c-${sent.EmailTags[0]?.Value}` } };
    };
    const outcomes = await adapter.send(credentialAt(server.url), [email('101')]);
    expect(outcomes).toEqual([{ messageId: '101', kind: 'accepted', providerMessageId: '0100018c-101' }]);
    const [request] = server.received;
    expect(request?.url).toBe('/v2/email/outbound-emails');
    expect(request?.headers['host']).toBe(new URL(server.url).host);
    expect(request?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(request?.headers['authorization']).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/\\d{8}/eu-central-1/ses/aws4_request, ` +
          'SignedHeaders=content-length;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$',
      ),
    );
    expect(request?.headers['authorization']).not.toContain('wJalrXUtnFEMI');
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      FromEmailAddress: 'news@example.com',
      Destination: { ToAddresses: ['user101@example.org'] },
      EmailTags: [{ Name: 'ums_message_id', Value: '101' }],
    });
  });

  it('classifies each error class of SES', async () => {
    const replies: Record<string, Answer> = {
      'a@example.org': awsError(400, 'MessageRejected', 'Email address is not verified.'),
      'b@example.org': awsError(400, 'AccountSendingPausedException', 'Sending is paused for this account.'),
      'c@example.org': awsError(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match',
      ),
      'd@example.org': awsError(500, 'InternalFailure', 'Internal failure'),
      'e@example.org': { status: 400, body: { __type: 'BadRequestException', message: 'Illegal address' } },
    };
    server.handler = (request) =>
      replies[
        (JSON.parse(request.body) as { Destination: { ToAddresses: string[] } }).Destination.ToAddresses[0] ??
          ''
      ] ?? { status: 418 };
    const outcomes = await adapter.send(
      credentialAt(server.url),
      ['a', 'b', 'c', 'd', 'e'].map((x, i) => email(String(i + 1), `${x}@example.org`)),
    );
    expect(outcomes.map((o) => (o.kind === 'accepted' ? o.kind : [o.kind, o.reason, o.code]))).toEqual([
      ['permanent', FailureReason.Rejected, 'MessageRejected'],
      ['permanent', FailureReason.Blocked, 'AccountSendingPausedException'],
      ['permanent', FailureReason.Rejected, 'SignatureDoesNotMatch'],
      ['retryable', FailureReason.ProviderError, 'InternalFailure'],
      ['permanent', FailureReason.Rejected, 'BadRequestException'],
    ]);
  });

  it('turns 429 TooManyRequestsException into congestion and does not send the rest', async () => {
    server.handler = () => ({
      ...awsError(429, 'TooManyRequestsException', 'Maximum sending rate exceeded.'),
      headers: { 'retry-after': '1' },
    });
    const outcomes = await adapter.send(
      credentialAt(server.url),
      Array.from({ length: 8 }, (_, i) => email(String(200 + i))),
    );
    const attempted = outcomes.filter((o) => o.kind === 'retryable' && o.code === 'TooManyRequestsException');
    expect(attempted[0]).toMatchObject({
      reason: FailureReason.Throttled,
      congestion: true,
      retryAfterMs: 1000,
    });
    expect(server.received).toHaveLength(attempted.length);
  });

  it('reports timeouts and refused connections', async () => {
    server.handler = () => 'hang';
    expect((await adapter.send(credentialAt(server.url), [email('301')]))[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Timeout,
      ambiguous: true,
    });
    const closed = credentialAt(`http://127.0.0.1:${await closedPort()}`, 'cred_ses_closed');
    expect((await adapter.send(closed, [email('302')]))[0]).toMatchObject({
      reason: FailureReason.NetworkError,
      code: 'ECONNREFUSED',
      ambiguous: false,
    });
  });
});
