import { Channel, FailureReason, Provider } from '@ums/contracts';
import { type ServiceProcess, startServiceProcess } from '@ums/testing';
import { CredentialConcurrency } from './credential-concurrency';
import { MittoAdapter } from './mitto.adapter';
import type { LoadedCredential, OutgoingMessage, ProviderAdapter, SendOutcome } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { SesAdapter } from './ses.adapter';
import { SimulatorAdapter } from './simulator.adapter';
import { credentialFor, message, testHttpClient, TWILIO_SID } from './test/provider-fixtures';
import { TwilioAdapter } from './twilio.adapter';
import { WhatsAppCloudAdapter } from './whatsapp-cloud.adapter';

jest.setTimeout(120_000);

const TWILIO_SID_BUSY = 'ACfedcba9876543210fedcba9876543210';
const FAILING_NUMBER = '+4915100000009';
// Callbacks would go to URLs nobody listens on here; webhook-ingest tests cover them.
const quiet = { callbacks: { enabled: false } };

/** Simulated accounts: a normal one per provider, one that always throttles, one that never answers. */
const SIMULATED = [
  {
    credentialId: 'wa',
    provider: 'whatsapp-cloud',
    account: { phoneNumberId: '1001' },
    secret: 'wa-token',
    permanentFailures: [FAILING_NUMBER.slice(1)],
    ...quiet,
  },
  {
    credentialId: 'wa-busy',
    provider: 'whatsapp-cloud',
    account: { phoneNumberId: '1002' },
    rate429: 1,
    ...quiet,
  },
  {
    credentialId: 'tw',
    provider: 'twilio',
    account: { accountSid: TWILIO_SID, from: '+15005550006' },
    secret: 'tw-token',
    permanentFailures: [FAILING_NUMBER],
    ...quiet,
  },
  {
    credentialId: 'tw-busy',
    provider: 'twilio',
    account: { accountSid: TWILIO_SID_BUSY },
    rate429: 1,
    ...quiet,
  },
  {
    credentialId: 'ses',
    provider: 'ses',
    account: { from: 'news@example.com', region: 'eu-west-1' },
    secret: 'AKIDSIM:sim/secret+key',
    permanentFailures: ['bad@example.org'],
    ...quiet,
  },
  { credentialId: 'ses-busy', provider: 'ses', account: { from: 'busy@example.com' }, rate429: 1, ...quiet },
  {
    credentialId: 'mitto',
    provider: 'mitto',
    account: { from: 'ACME' },
    secret: 'mitto-key',
    permanentFailures: [FAILING_NUMBER],
    ...quiet,
  },
  { credentialId: 'mitto-busy', provider: 'mitto', account: { from: 'BUSY' }, rate429: 1, ...quiet },
  {
    credentialId: 'native',
    provider: 'simulator',
    secret: 'sim-key',
    permanentFailures: [FAILING_NUMBER],
    ...quiet,
  },
  { credentialId: 'native-busy', provider: 'simulator', rate429: 1, ...quiet },
  { credentialId: 'native-stuck', provider: 'simulator', timeoutRate: 1, ...quiet },
];

interface Stats {
  accepted: number;
  rejectedPermanent: number;
  throttled: number;
  duplicates: number;
}

/** Every adapter against the real provider-simulator process (built from dist/). */
describe('provider adapters against the provider simulator (service process)', () => {
  let sim: ServiceProcess;
  let http: ProviderHttpClient;
  let concurrency: CredentialConcurrency;

  beforeAll(async () => {
    sim = await startServiceProcess({
      app: 'provider-simulator',
      env: { SIMULATOR_CREDENTIALS: JSON.stringify(SIMULATED), SIMULATOR_TIMEOUT_HOLD_MS: '5000' },
    });
    const client = testHttpClient({
      PROVIDER_HTTP_TIMEOUT_MS: '500',
      PROVIDER_CONCURRENCY_PER_CREDENTIAL: '16',
    });
    http = client.http;
    concurrency = new CredentialConcurrency(client.config);
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await sim?.process.stop();
  });

  async function stats(credentialId: string): Promise<Stats> {
    const response = await fetch(`${sim.url}/_sim/stats?credentialId=${credentialId}`);
    return (await response.json()) as Stats;
  }

  /** 20 good messages and one to the simulator's failing recipient, through one adapter. */
  async function sendThrough<P extends Provider>(
    adapter: ProviderAdapter<P>,
    credential: LoadedCredential<P>,
    channel: Channel,
    recipient: (i: number) => string,
    failing: string,
    content: OutgoingMessage['content'],
  ): Promise<SendOutcome[]> {
    const base = Math.floor(Math.random() * 1e9) * 100;
    const messages = Array.from({ length: 21 }, (_, i) =>
      message(String(base + i), channel, i === 20 ? failing : recipient(i), content),
    );
    return adapter.send(credential, messages);
  }

  const phone = (i: number): string => `+491510000${String(100 + i)}`;

  it('WhatsApp Cloud: accepted with wamids, 131026 permanent, 130429 congestion', async () => {
    const adapter = new WhatsAppCloudAdapter(http, concurrency);
    const credential = (id: string, phoneNumberId: string) =>
      credentialFor(Provider.WhatsAppCloud, { baseUrl: sim.url, phoneNumberId }, 'wa-token', {
        id,
        channel: Channel.WhatsApp,
      });
    const outcomes = await sendThrough(
      adapter,
      credential('wa', '1001'),
      Channel.WhatsApp,
      phone,
      FAILING_NUMBER,
      {
        templateName: 'order_ready',
        templateParameters: ['Ann'],
      },
    );
    expect(
      outcomes.slice(0, 20).every((o) => o.kind === 'accepted' && o.providerMessageId?.startsWith('wamid.')),
    ).toBe(true);
    expect(outcomes[20]).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: '131026',
    });
    expect(await stats('wa')).toMatchObject({ accepted: 20, rejectedPermanent: 1, duplicates: 0 });

    const [busy] = await adapter.send(credential('wa-busy', '1002'), [
      message('1', Channel.WhatsApp, phone(1), { text: 'x' }),
    ]);
    expect(busy).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: '130429',
      congestion: true,
    });
  });

  it('Twilio: accepted with SM sids, 21211 permanent, 20429 congestion', async () => {
    const adapter = new TwilioAdapter(http, concurrency);
    const credential = (id: string, accountSid: string) =>
      credentialFor(
        Provider.Twilio,
        {
          baseUrl: sim.url,
          accountSid,
          from: '+15005550006',
          statusCallbackUrl: 'http://127.0.0.1:9/twilio',
        },
        'tw-token',
        { id },
      );
    const outcomes = await sendThrough(
      adapter,
      credential('tw', TWILIO_SID),
      Channel.Sms,
      phone,
      FAILING_NUMBER,
      { text: 'Hello' },
    );
    expect(
      outcomes.slice(0, 20).every((o) => o.kind === 'accepted' && o.providerMessageId?.startsWith('SM')),
    ).toBe(true);
    expect(outcomes[20]).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: '21211',
    });
    expect(await stats('tw')).toMatchObject({ accepted: 20, rejectedPermanent: 1, duplicates: 0 });

    const [busy] = await adapter.send(credential('tw-busy', TWILIO_SID_BUSY), [
      message('1', Channel.Sms, phone(1), { text: 'x' }),
    ]);
    expect(busy).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: '20429',
      congestion: true,
    });
  });

  it('SES: accepted with MessageIds (SigV4 accepted), MessageRejected permanent, TooManyRequests congestion', async () => {
    const adapter = new SesAdapter(http, concurrency);
    const credential = (id: string, fromAddress: string) =>
      credentialFor(
        Provider.Ses,
        { baseUrl: sim.url, region: 'eu-west-1', fromAddress },
        'AKIDSIM:sim/secret+key',
        {
          id,
          channel: Channel.Email,
        },
      );
    const outcomes = await sendThrough(
      adapter,
      credential('ses', 'news@example.com'),
      Channel.Email,
      (i) => `user${i}@example.org`,
      'bad@example.org',
      { subject: 'Hello', text: 'Body' },
    );
    expect(outcomes.slice(0, 20).every((o) => o.kind === 'accepted' && o.providerMessageId !== null)).toBe(
      true,
    );
    expect(outcomes[20]).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'MessageRejected',
    });
    expect(await stats('ses')).toMatchObject({ accepted: 20, rejectedPermanent: 1, duplicates: 0 });

    const [busy] = await adapter.send(credential('ses-busy', 'busy@example.com'), [
      message('1', Channel.Email, 'a@example.org', { subject: 's', text: 't' }),
    ]);
    expect(busy).toMatchObject({ kind: 'retryable', code: 'TooManyRequestsException', congestion: true });
  });

  it('Mitto: one POST /sms per message, responseCode 8 permanent, 429 with Retry-After', async () => {
    const adapter = new MittoAdapter(http, concurrency);
    const outcomes = await sendThrough(
      adapter,
      credentialFor(Provider.Mitto, { baseUrl: sim.url, from: 'ACME' }, 'mitto-key', { id: 'mitto' }),
      Channel.Sms,
      phone,
      FAILING_NUMBER,
      { text: 'Hello' },
    );
    expect(outcomes.slice(0, 20).every((o) => o.kind === 'accepted' && o.providerMessageId !== null)).toBe(
      true,
    );
    expect(outcomes[20]).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: '8',
    });
    expect(await stats('mitto')).toMatchObject({ accepted: 20, rejectedPermanent: 1, duplicates: 0 });

    const busy = await adapter.send(
      credentialFor(Provider.Mitto, { baseUrl: sim.url, from: 'BUSY' }, 'any-key', { id: 'mitto-busy' }),
      [
        message('1', Channel.Sms, phone(1), { text: 'x' }),
        message('2', Channel.Sms, phone(2), { text: 'x' }),
      ],
    );
    // One request per message: the first 429 is the congestion signal, the second may not be sent.
    expect(busy[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      congestion: true,
      retryAfterMs: 1000,
    });
    expect(busy[1]).toMatchObject({ kind: 'retryable', reason: FailureReason.Throttled, retryAfterMs: 1000 });
  });

  it('simulator native API: bulk, per-item INVALID_NUMBER, 429 with Retry-After, and a timeout', async () => {
    const adapter = new SimulatorAdapter(http, concurrency);
    const credential = (id: string) =>
      credentialFor(Provider.Simulator, { baseUrl: sim.url }, 'sim-key', { id });
    const outcomes = await sendThrough(adapter, credential('native'), Channel.Sms, phone, FAILING_NUMBER, {
      text: 'Hello',
    });
    expect(outcomes.slice(0, 20).every((o) => o.kind === 'accepted' && o.providerMessageId !== null)).toBe(
      true,
    );
    expect(outcomes[20]).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: 'INVALID_NUMBER',
    });
    expect(await stats('native')).toMatchObject({ accepted: 20, rejectedPermanent: 1, duplicates: 0 });

    const [busy] = await adapter.send(credential('native-busy'), [
      message('1', Channel.Sms, phone(1), { text: 'x' }),
    ]);
    expect(busy).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: 'THROTTLED',
      congestion: true,
      retryAfterMs: 1000,
    });

    const [stuck] = await adapter.send(credential('native-stuck'), [
      message('2', Channel.Sms, phone(2), { text: 'x' }),
    ]);
    expect(stuck).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Timeout,
      ambiguous: true,
      congestion: true,
    });
  });
});
