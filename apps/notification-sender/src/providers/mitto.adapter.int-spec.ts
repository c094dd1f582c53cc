import { Channel, FailureReason, Provider } from '@ums/contracts';
import { type ServiceProcess, startServiceProcess } from '@ums/testing';
import { CredentialConcurrency } from './credential-concurrency';
import { MittoAdapter } from './mitto.adapter';
import { MittoStatusApi } from './mitto.status-api';
import type { OutgoingMessage, SendOutcome, StatusQuery } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { closedPort } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient } from './test/provider-fixtures';

jest.setTimeout(120_000);

const FAILING_NUMBER = '+4915100000009';
const quiet = { callbacks: { enabled: false } };

/** Mitto accounts of the simulator: by sender; every one has a key, so a wrong key matches none. */
const SIMULATED = [
  { credentialId: 'm-ok', provider: 'mitto', account: { from: 'OK' }, secret: 'k-ok', ...quiet },
  {
    credentialId: 'm-cap',
    provider: 'mitto',
    account: { from: 'CAP' },
    secret: 'k-cap',
    capacityTps: 4,
    permanentFailures: [FAILING_NUMBER],
    ...quiet,
  },
  {
    credentialId: 'm-5xx',
    provider: 'mitto',
    account: { from: 'FIVE' },
    secret: 'k',
    error5xxRate: 1,
    ...quiet,
  },
  { credentialId: 'm-429', provider: 'mitto', account: { from: 'BUSY' }, secret: 'k', rate429: 1, ...quiet },
  {
    credentialId: 'm-stuck',
    provider: 'mitto',
    account: { from: 'STUCK' },
    secret: 'k',
    timeoutRate: 1,
    ...quiet,
  },
];

interface SendCounts {
  accepted: number;
  attempts: number;
}

/** MittoAdapter and MittoStatusApi against the real provider-simulator process (built from dist/). */
describe('MittoAdapter against the provider simulator', () => {
  let sim: ServiceProcess;
  let http: ProviderHttpClient;
  let adapter: MittoAdapter;
  let statusApi: MittoStatusApi;
  const base = Math.floor(Math.random() * 1e9) * 1000;
  const credential = (id: string, from: string, key = 'k') =>
    credentialFor(Provider.Mitto, { baseUrl: sim.url, from }, key, { id });
  const sms = (n: number, to = `+491510${String(n).padStart(6, '0')}`): OutgoingMessage =>
    message(String(base + n), Channel.Sms, to, { text: `Grüße ${n}` });

  beforeAll(async () => {
    sim = await startServiceProcess({
      app: 'provider-simulator',
      env: { SIMULATOR_CREDENTIALS: JSON.stringify(SIMULATED), SIMULATOR_TIMEOUT_HOLD_MS: '5000' },
    });
    const client = testHttpClient({
      // Generous: on a loaded test host a slow answer must not pass for a timeout.
      PROVIDER_HTTP_TIMEOUT_MS: '2000',
      PROVIDER_CONCURRENCY_PER_CREDENTIAL: '16',
    });
    http = client.http;
    const concurrency = new CredentialConcurrency(client.config);
    adapter = new MittoAdapter(http, concurrency);
    statusApi = new MittoStatusApi(http, concurrency);
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await sim?.process.stop();
  });

  async function sends(messageId: string): Promise<SendCounts> {
    return (await (await fetch(`${sim.url}/_sim/sends/${messageId}`)).json()) as SendCounts;
  }

  it('sends each message by its own POST /sms, accepted with its Mitto id', async () => {
    const messages = [sms(1), sms(2), sms(3)];
    const outcomes = await adapter.send(credential('m-ok', 'OK', 'k-ok'), messages);
    expect(outcomes.map((o) => o.messageId)).toEqual(messages.map((m) => m.messageId));
    const ids = outcomes.map((o) => (o.kind === 'accepted' ? o.providerMessageId : null));
    expect(ids.every((id) => typeof id === 'string' && /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    for (const m of messages) expect(await sends(m.messageId)).toMatchObject({ accepted: 1, attempts: 1 });
  });

  it('retries only what failed: throttled messages again, the invalid number never, no duplicates', async () => {
    const cap = credential('m-cap', 'CAP', 'k-cap');
    const messages = [...Array.from({ length: 11 }, (_, i) => sms(100 + i)), sms(111, FAILING_NUMBER)];
    let pending: readonly OutgoingMessage[] = messages;
    const final = new Map<string, SendOutcome>();
    for (let round = 0; round < 8 && pending.length > 0; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 1_100));
      const outcomes = await adapter.send(cap, pending);
      for (const outcome of outcomes) final.set(outcome.messageId, outcome);
      if (round === 0) {
        expect(outcomes.some((o) => o.kind === 'retryable' && o.reason === FailureReason.Throttled)).toBe(
          true,
        );
      }
      pending = pending.filter((m) => final.get(m.messageId)?.kind === 'retryable');
    }
    expect(pending).toEqual([]);
    const failing = final.get(String(base + 111));
    expect(failing).toMatchObject({ kind: 'permanent', reason: FailureReason.InvalidRecipient, code: '8' });
    for (const m of messages.slice(0, 11)) {
      expect(final.get(m.messageId)?.kind).toBe('accepted');
      expect((await sends(m.messageId)).accepted).toBe(1);
    }
    expect(await sends(String(base + 111))).toMatchObject({ accepted: 0, attempts: 1 });
    const stats = (await (await fetch(`${sim.url}/_sim/stats?credentialId=m-cap`)).json()) as Record<
      string,
      number
    >;
    expect(stats).toMatchObject({ accepted: 11, rejectedPermanent: 1, duplicates: 0 });
  });

  it('classifies 429 as congestion (one signal per request), 5xx as retryable, and timeouts', async () => {
    const [first, second] = await adapter.send(credential('m-429', 'BUSY'), [sms(200), sms(201)]);
    expect(first).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      congestion: true,
      retryAfterMs: 1000,
    });
    expect(second).toMatchObject({ kind: 'retryable', reason: FailureReason.Throttled, retryAfterMs: 1000 });
    const five = await adapter.send(credential('m-5xx', 'FIVE'), [sms(210)]);
    expect(five[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: '1',
      detail: 'Internal error',
      ambiguous: false,
    });
    const stuck = await adapter.send(credential('m-stuck', 'STUCK'), [sms(220)]);
    expect(stuck[0]).toMatchObject({ kind: 'retryable', code: 'UND_ERR_HEADERS_TIMEOUT' });
    const unknownSender = await adapter.send(credential('m-x', 'NOBODY'), [sms(230)]);
    expect(unknownSender[0]).toMatchObject({ kind: 'permanent', reason: FailureReason.Rejected, code: '6' });
    const closed = credentialFor(
      Provider.Mitto,
      { baseUrl: `http://127.0.0.1:${await closedPort()}`, from: 'OK' },
      'k-ok',
      { id: 'm-closed' },
    );
    expect((await adapter.send(closed, [sms(240)]))[0]).toMatchObject({
      code: 'ECONNREFUSED',
      ambiguous: false,
    });
  });

  it('answers the former /sms/bulk with 404, as Mitto does', async () => {
    const response = await fetch(`${sim.url}/sms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mitto-api-key': 'k-ok' },
      body: JSON.stringify({ from: 'OK', messages: [{ to: '+49151', text: 'x', reference: '1' }] }),
    });
    expect(response.status).toBe(404);
  });

  it('looks a message up by our reference: accepted with its id, or not received', async () => {
    const sent = sms(300);
    const [outcome] = await adapter.send(credential('m-ok', 'OK', 'k-ok'), [sent]);
    const query = (messageId: string): StatusQuery => ({
      messageId,
      recipient: sent.recipient,
      providerMessageId: null,
      claimedAt: new Date(),
    });
    const lookups = await statusApi.lookup(credential('m-ok', 'OK', 'k-ok'), [
      query(sent.messageId),
      query(String(base + 301)),
    ]);
    expect(lookups).toEqual([
      {
        messageId: sent.messageId,
        kind: 'accepted',
        providerMessageId: outcome?.kind === 'accepted' ? outcome.providerMessageId : 'missing',
        status: 'sent',
        at: expect.any(Date) as Date,
      },
      { messageId: String(base + 301), kind: 'not-received' },
    ]);
    // A wrong key proves nothing either way.
    const [denied] = await statusApi.lookup(credential('m-ok', 'OK', 'wrong'), [query(sent.messageId)]);
    expect(denied).toMatchObject({ kind: 'unknown' });
  });
});
