import { randomBytes } from 'node:crypto';
import {
  AllTopics,
  Channel,
  type InboundMessageV1,
  type OptOutPage,
  type SendRequestV1,
  SendRequestKind,
  Topics,
} from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  parseSecretKeys,
  runPendingMigrations,
  SecretBox,
} from '@ums/platform';
import {
  createTenantKey,
  createTestDatabase,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  TEST_SECRETS_KEYS,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(240_000);

const ACCOUNT_SID = `AC${'1'.repeat(32)}`;
const AUTH_TOKEN = 'tw-auth-token-opt-in';
const SENDER = '+15017122661';
const RECIPIENT = '+4915100004242';

/**
 * A recipient's STOP and START replies, from the provider simulator's inbound path (a signed Twilio
 * incoming-message webhook) through webhook-ingest and the sender's status application, decide
 * whether single sends to them go out: the campaign-scheduler, notification-sender, webhook-ingest
 * and provider simulator run as processes.
 */
describe('opting out and back in by keyword (simulator, ingest, sender and scheduler processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let producer: Producer;
  let consumer: Consumer;
  let scheduler: ServiceProcess;
  let simulator: SimulatorClient;
  let key = '';
  const processes: ServiceProcess[] = [];
  const inbound: InboundMessageV1[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('opt_in_keywords');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const env = {
      ...serviceEnv(db.settings.database, namespace),
      PROVIDER_ENDPOINTS_TWILIO: 'http://127.0.0.1:*',
    };
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      const started = await startServiceProcess({ app, env: { ...env, ...extra } });
      processes.push(started);
      return started;
    };
    const [sim, ingest] = await Promise.all([
      start('provider-simulator', { LOG_LEVEL: 'error' }),
      start('webhook-ingest'),
    ]);
    simulator = new SimulatorClient(sim.url);
    [scheduler] = await Promise.all([
      start('campaign-scheduler'),
      start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `t:${namespace}:` }),
    ]);
    const keys = parseSecretKeys(TEST_SECRETS_KEYS);
    if (!('keys' in keys)) throw new Error(keys.error);
    const callbackUrl = `${ingest.url}/v1/callbacks/twilio/cred_tw`;
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
                                rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_tw', 'acme', 'twilio', 'twilio', 'sms', ?, ?, 50, 5)`,
      [
        JSON.stringify({
          baseUrl: sim.url,
          accountSid: ACCOUNT_SID,
          from: SENDER,
          statusCallbackUrl: callbackUrl,
        }),
        new SecretBox(keys.keys).seal(AUTH_TOKEN),
      ],
    );
    // Replies go to the credential's incoming-message webhook, signed with the auth token as Twilio signs.
    await simulator.putCredential('cred_tw', {
      provider: 'twilio',
      account: { accountSid: ACCOUNT_SID, from: SENDER },
      secret: AUTH_TOKEN,
      callbackUrl,
      callbackSecret: AUTH_TOKEN,
      callbacks: { enabled: false },
    });
    key = await createTenantKey(scheduler.url, 'acme');
    consumer = testKafka().consumer({ groupId: 'inbound-observer' });
    await consumer.connect();
    await consumer.subscribe({ topic: names.topic(Topics.inboundMessages.name), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        inbound.push(JSON.parse(String(message.value)) as InboundMessageV1);
        await Promise.resolve();
      },
    });
    producer = testKafka().producer();
    await producer.connect();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await Promise.all([producer?.disconnect(), consumer?.disconnect()]);
    await ds?.destroy();
    await db?.drop();
  });

  /** The recipient replies through the simulator; answers the inbound event once the sender published it. */
  async function reply(text: string): Promise<InboundMessageV1> {
    const response = await fetch(`${simulator.url}/_sim/credentials/cred_tw/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: RECIPIENT, text }),
    });
    const delivery = (await response.json()) as { providerMessageId: string; status: number };
    expect([response.status, delivery.status]).toEqual([200, 200]);
    let event: InboundMessageV1 | undefined;
    await waitUntil(`the inbound ${text}`, () => {
      event = inbound.find((e) => e.providerMessageId === delivery.providerMessageId);
      return event !== undefined;
    });
    return event as InboundMessageV1;
  }

  async function optOuts(): Promise<string[]> {
    const answer = await jsonCall(scheduler.url, 'GET', '/v1/opt-outs', undefined, key);
    return (answer.body as unknown as OptOutPage).items.map((o) => `${o.channel} ${o.address} ${o.source}`);
  }

  /** A single send to the recipient through the Kafka send requests; answers its row once settled. */
  async function send(requestId: string): Promise<{ state: string; reason: string | null }> {
    const request: SendRequestV1 = {
      requestId,
      kind: SendRequestKind.Single,
      tenantId: 'acme',
      channel: Channel.Sms,
      credentialId: 'cred_tw',
      content: { text: 'Your order shipped' },
      recipient: { address: RECIPIENT },
      requestedAt: new Date().toISOString(),
    };
    await producer.send({
      topic: names.topic(Topics.sendRequests.name),
      acks: -1,
      messages: [{ key: 'acme', value: JSON.stringify(request) }],
    });
    let row: { state: string; reason: string | null } | undefined;
    await waitUntil(`send ${requestId} settled`, async () => {
      const rows = (await ds.query(
        `SELECT state, reason FROM messages WHERE tenant_id = 'acme' AND idempotency_key = ?`,
        [requestId],
      )) as { state: string; reason: string | null }[];
      row = rows[0];
      return row !== undefined && row.state !== 'PENDING' && row.state !== 'SENDING';
    });
    return row as { state: string; reason: string | null };
  }

  it('skips sends after STOP and sends again after START, announcing both on the inbound topic', async () => {
    expect(await send('before')).toEqual({ state: 'SENT', reason: null });

    const stop = await reply('Stop');
    expect(stop).toMatchObject({ from: RECIPIENT, to: SENDER, text: 'Stop', optOut: true, optIn: false });
    expect(await optOuts()).toEqual([`sms ${RECIPIENT} inbound:twilio`]);
    expect(await send('after-stop')).toEqual({ state: 'SKIPPED', reason: 'opted-out' });

    // Not a keyword: nothing changes.
    expect(await reply('start sending again please')).toMatchObject({ optOut: false, optIn: false });
    expect(await optOuts()).toHaveLength(1);

    const start = await reply('START');
    expect(start).toMatchObject({ text: 'START', optOut: false, optIn: true });
    expect(await optOuts()).toEqual([]);
    expect(await send('after-start')).toEqual({ state: 'SENT', reason: null });

    // Twilio lifts its block on YES too: after another STOP, YES opts back in on Twilio SMS.
    await reply('UNSUBSCRIBE');
    expect(await optOuts()).toHaveLength(1);
    expect(await reply('yes')).toMatchObject({ optIn: true });
    expect(await optOuts()).toEqual([]);

    const stats = await simulator.stats('cred_tw');
    expect([stats.distinctMessages, stats.duplicates]).toEqual([2, 0]);
  });

  it('refuses replies the simulator cannot deliver as the provider would', async () => {
    await simulator.putCredential('cred_native', {
      provider: 'simulator',
      callbackUrl: 'http://127.0.0.1:9/x',
    });
    const post = async (credentialId: string, body: unknown): Promise<[number, unknown]> => {
      const response = await fetch(`${simulator.url}/_sim/credentials/${credentialId}/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { error?: { code?: string } };
      return [response.status, answer.error?.code];
    };
    expect(await post('cred_native', { from: RECIPIENT, text: 'STOP' })).toEqual([
      409,
      'INBOUND_UNAVAILABLE',
    ]);
    expect(await post('cred_tw', { from: '0151 1234', text: 'STOP' })).toEqual([400, 'VALIDATION_FAILED']);
    expect(await post('cred_nope', { from: RECIPIENT, text: 'STOP' })).toEqual([404, 'CREDENTIAL_NOT_FOUND']);
  });
});
