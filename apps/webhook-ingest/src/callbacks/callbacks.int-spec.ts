import { createHmac, randomBytes } from 'node:crypto';
import { AllTopics, type ProviderEventV1, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  parseSecretKeys,
  runPendingMigrations,
  SecretBox,
} from '@ums/platform';
import {
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_SECRETS_KEYS,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

// Signatures are computed here from the providers' documented rules, independently of the code under test.
const hubSignature = (secret: string, raw: string | Buffer): string =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
const twilioSignature = (token: string, url: string, form: URLSearchParams): string => {
  const sorted = [...form.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha1', token)
    .update(url + sorted.map(([k, v]) => k + v).join(''), 'utf8')
    .digest('base64');
};

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

async function post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: response.status, text, json };
}

const errorCode = (answer: Answer): unknown => (answer.json['error'] as { code?: unknown } | undefined)?.code;

/** A Meta webhook as the Cloud API posts it: statuses (and messages) of one phone number. */
function metaWebhook(
  statuses: readonly Record<string, unknown>[],
  messages: readonly Record<string, unknown>[] = [],
): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA-1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '1065' },
              ...(messages.length > 0
                ? { contacts: [{ profile: { name: 'Ana' }, wa_id: '4915100000001' }], messages }
                : {}),
              ...(statuses.length > 0 ? { statuses } : {}),
            },
          },
        ],
      },
    ],
  });
}

const metaStatus = (id: string, status: string, messageId?: string): Record<string, unknown> => ({
  id,
  status,
  timestamp: '1700000000',
  recipient_id: '4915100000001',
  ...(messageId === undefined ? {} : { biz_opaque_callback_data: messageId }),
  ...(status === 'failed'
    ? {
        errors: [{ code: 131026, title: 'Message undeliverable', error_data: { details: 'Undeliverable.' } }],
      }
    : {}),
});

describe('webhook-ingest callbacks (real process, Kafka, MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let consumer: Consumer;
  let ingest: ServiceProcess;
  let simulator: ServiceProcess;
  const events: ProviderEventV1[] = [];

  const byProviderId = (id: string): ProviderEventV1[] =>
    events.filter((e) => (e.status?.providerMessageId ?? e.inbound?.providerMessageId) === id);

  beforeAll(async () => {
    db = await createTestDatabase('ingest');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const keys = parseSecretKeys(TEST_SECRETS_KEYS);
    if (!('keys' in keys)) throw new Error(keys.error);
    const box = new SecretBox(keys.keys);
    const credential = async (
      id: string,
      provider: string,
      channel: string,
      config: Record<string, unknown>,
      secret: string | null,
      callbackSecret: string | null,
    ): Promise<void> => {
      await ds.query(
        `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
                                  callback_secret_ciphertext, rate_ceiling_per_sec, rate_floor_per_sec)
         VALUES (?, 'tenant-a', ?, ?, ?, ?, ?, ?, 100, 1)`,
        [
          id,
          id,
          provider,
          channel,
          JSON.stringify(config),
          secret === null ? null : box.seal(secret),
          callbackSecret === null ? null : box.seal(callbackSecret),
        ],
      );
    };
    await credential(
      'cred_wa',
      'whatsapp-cloud',
      'whatsapp',
      { baseUrl: 'http://127.0.0.1:1', phoneNumberId: '1065', webhookVerifyToken: 'verify-me' },
      'access-token',
      'meta-app-secret',
    );
    await credential(
      'cred_tw',
      'twilio',
      'sms',
      { baseUrl: 'http://127.0.0.1:1', accountSid: `AC${'0'.repeat(31)}7`, from: '+15017122661' },
      'tw-auth-token',
      null,
    );
    await credential(
      'cred_mitto',
      'mitto',
      'sms',
      { baseUrl: 'http://127.0.0.1:1', from: 'ACME' },
      'k',
      'mitto-token',
    );
    await credential('cred_sim', 'simulator', 'sms', { baseUrl: 'http://127.0.0.1:1' }, null, 'sim-secret');
    await credential('cred_nosecret', 'simulator', 'sms', { baseUrl: 'http://127.0.0.1:1' }, null, null);

    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    consumer = testKafka().consumer({ groupId: 'ingest-observer' });
    await consumer.connect();
    await consumer.subscribe({ topics: [names.topic(Topics.providerEvents.name)], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        events.push(JSON.parse(String(message.value)) as ProviderEventV1);
        await Promise.resolve();
      },
    });
    ingest = await startServiceProcess({
      app: 'webhook-ingest',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        INGEST_WHATSAPP_MAX_BODY_BYTES: String(256 * 1024),
        INGEST_TWILIO_MAX_BODY_BYTES: String(4 * 1024),
      },
    });
    simulator = await startServiceProcess({ app: 'provider-simulator', env: {} });
  });

  afterAll(async () => {
    await Promise.all([ingest?.process.stop(), simulator?.process.stop()]);
    await consumer?.disconnect();
    await ds?.destroy();
    await db?.drop();
  });

  describe('WhatsApp Cloud API', () => {
    const url = (): string => `${ingest.url}/v1/callbacks/whatsapp/cred_wa`;
    const signed = (body: string): Record<string, string> => ({
      'content-type': 'application/json',
      'x-hub-signature-256': hubSignature('meta-app-secret', body),
    });

    it('answers the verification challenge only with the verify token', async () => {
      const ok = await fetch(
        `${url()}?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444`,
      );
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('1158201444');
      const bad = await fetch(
        `${url()}?hub.mode=subscribe&hub.verify_token=verify-mf&hub.challenge=1158201444`,
      );
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('VERIFY_TOKEN_INVALID');
    });

    it('publishes every status and message of a verified webhook before answering 200', async () => {
      const body = metaWebhook(
        [
          metaStatus('wamid.A1', 'sent', '101'),
          metaStatus('wamid.A1', 'delivered', '101'),
          metaStatus('wamid.A2', 'failed', '102'),
        ],
        [
          {
            from: '4915100000001',
            id: 'wamid.IN1',
            timestamp: '1700000001',
            type: 'text',
            text: { body: 'Stop' },
          },
          {
            from: '4915100000001',
            id: 'wamid.IN2',
            timestamp: '1700000002',
            type: 'image',
            image: { id: 'media-9', mime_type: 'image/jpeg', sha256: 'x', caption: 'look' },
          },
        ],
      );
      const answer = await post(url(), body, signed(body));
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ published: 5, ignored: 0 });
      await waitUntil(
        '5 events',
        () =>
          byProviderId('wamid.A1').length +
            byProviderId('wamid.A2').length +
            byProviderId('wamid.IN1').length +
            byProviderId('wamid.IN2').length >=
          5,
      );
      expect(byProviderId('wamid.A1').map((e) => e.status?.status)).toEqual(['SENT', 'DELIVERED']);
      expect(byProviderId('wamid.A2')[0]).toMatchObject({
        kind: 'status',
        provider: 'whatsapp-cloud',
        credentialId: 'cred_wa',
        status: {
          messageId: '102',
          status: 'FAILED',
          reason: 'invalid-recipient',
          errorCode: '131026',
          errorText: 'Message undeliverable: Undeliverable.',
          occurredAt: '2023-11-14T22:13:20.000Z',
        },
      });
      expect(byProviderId('wamid.IN1')[0]?.inbound).toMatchObject({
        from: '4915100000001',
        to: '15550783881',
        text: 'Stop',
        optOut: true,
      });
      expect(byProviderId('wamid.IN2')[0]?.inbound).toMatchObject({
        mediaRef: 'media-9',
        mediaType: 'image/jpeg',
        text: 'look',
        optOut: false,
      });
    });

    it('refuses bad signatures, tampered, malformed and oversized bodies, publishing nothing', async () => {
      const body = metaWebhook([metaStatus('wamid.BAD', 'delivered', '103')]);
      const badSignature = await post(url(), body, {
        'content-type': 'application/json',
        'x-hub-signature-256': hubSignature('another-secret', body),
      });
      expect([badSignature.status, errorCode(badSignature)]).toEqual([400, 'SIGNATURE_INVALID']);
      const unsigned = await post(url(), body, { 'content-type': 'application/json' });
      expect([unsigned.status, errorCode(unsigned)]).toEqual([400, 'SIGNATURE_INVALID']);
      const tampered = await post(url(), body.replace('delivered', 'read'), signed(body));
      expect([tampered.status, errorCode(tampered)]).toEqual([400, 'SIGNATURE_INVALID']);
      const notJson = '{"object":"whatsapp_business_account","entry":[';
      const malformed = await post(url(), notJson, signed(notJson));
      expect([malformed.status, errorCode(malformed)]).toEqual([400, 'CALLBACK_MALFORMED']);
      const wrongShape = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          { changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.BAD', status: 'read' }] } }] },
        ],
      });
      const shape = await post(url(), wrongShape, signed(wrongShape));
      expect([shape.status, errorCode(shape)]).toEqual([400, 'CALLBACK_MALFORMED']);
      expect(JSON.stringify(shape.json)).toContain('entry[0].changes[0].value.statuses[0].timestamp');
      const big = metaWebhook(
        Array.from({ length: 3000 }, (_, i) => metaStatus(`wamid.BAD${i}`, 'sent', '103')),
      );
      expect(Buffer.byteLength(big)).toBeGreaterThan(256 * 1024);
      const oversized = await post(url(), big, signed(big));
      expect(oversized.status).toBe(413);
      const unknown = await post(`${ingest.url}/v1/callbacks/whatsapp/cred_nope`, body, signed(body));
      expect([unknown.status, errorCode(unknown)]).toEqual([404, 'CREDENTIAL_NOT_FOUND']);
      // Another provider's credential is not a WhatsApp intake.
      const other = await post(`${ingest.url}/v1/callbacks/whatsapp/cred_sim`, body, signed(body));
      expect(other.status).toBe(404);
      // The same message id (so the same partition) verified afterwards: only it arrives.
      const good = metaWebhook([metaStatus('wamid.GOOD', 'delivered', '103')]);
      expect((await post(url(), good, signed(good))).status).toBe(200);
      await waitUntil('the verified one', () => byProviderId('wamid.GOOD').length === 1);
      expect(events.filter((e) => e.status?.providerMessageId.startsWith('wamid.BAD'))).toHaveLength(0);
    });
  });

  describe('Twilio', () => {
    it('verifies X-Twilio-Signature over the URL as called, query included', async () => {
      const url = `${ingest.url}/v1/callbacks/twilio/cred_tw?ums_message_id=201`;
      const form = new URLSearchParams({
        AccountSid: `AC${'0'.repeat(31)}7`,
        ApiVersion: '2010-04-01',
        ErrorCode: '30003',
        From: '+15017122661',
        MessageSid: 'SM0001',
        MessageStatus: 'undelivered',
        SmsSid: 'SM0001',
        SmsStatus: 'undelivered',
        To: '+4915100000002',
      });
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature('tw-auth-token', url, form),
      };
      const answer = await post(url, form.toString(), headers);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('<Response></Response>');
      await waitUntil('Twilio event', () => byProviderId('SM0001').length === 1);
      expect(byProviderId('SM0001')[0]?.status).toMatchObject({
        messageId: '201',
        status: 'FAILED',
        errorCode: '30003',
        reason: 'other',
      });
      // The signature covers the query: another message id with the same signature is refused.
      const moved = await post(
        url.replace('ums_message_id=201', 'ums_message_id=202'),
        form.toString(),
        headers,
      );
      expect([moved.status, errorCode(moved)]).toEqual([400, 'SIGNATURE_INVALID']);
      const tampered = new URLSearchParams(form);
      tampered.set('MessageStatus', 'delivered');
      const changed = await post(url, tampered.toString(), headers);
      expect([changed.status, errorCode(changed)]).toEqual([400, 'SIGNATURE_INVALID']);
      const big = new URLSearchParams(form);
      big.set('Body', 'x'.repeat(5000));
      const oversized = await post(url, big.toString(), {
        ...headers,
        'x-twilio-signature': twilioSignature('tw-auth-token', url, big),
      });
      expect(oversized.status).toBe(413);
    });

    it('reads an inbound STOP as an opt-out', async () => {
      const url = `${ingest.url}/v1/callbacks/twilio/cred_tw`;
      const form = new URLSearchParams({
        AccountSid: `AC${'0'.repeat(31)}7`,
        Body: 'STOP',
        From: '+4915100000009',
        MessageSid: 'SMIN1',
        NumMedia: '0',
        SmsStatus: 'received',
        To: '+15017122661',
      });
      const answer = await post(url, form.toString(), {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature('tw-auth-token', url, form),
      });
      expect(answer.status).toBe(200);
      await waitUntil('inbound', () => byProviderId('SMIN1').length === 1);
      expect(byProviderId('SMIN1')[0]).toMatchObject({
        kind: 'inbound',
        inbound: { from: '+4915100000009', to: '+15017122661', text: 'STOP', optOut: true },
      });
    });
  });

  describe('Mitto and the simulator', () => {
    it('takes Mitto reports as query parameters (POST or GET) with the token of the registered URL', async () => {
      const report = new URLSearchParams({
        id: 'mitto-1',
        reference: '301',
        to: '4915100000301',
        status: 'undelivered',
        code: '8',
        timestamp: '2026-01-01T00:00:00Z',
      });
      const url = (token: string | undefined, params = report): string => {
        const query = new URLSearchParams(params);
        if (token !== undefined) query.set('ums_token', token);
        return `${ingest.url}/v1/callbacks/mitto/cred_mitto?${query.toString()}`;
      };
      for (const token of ['mitto-tokeN', undefined, '']) {
        const bad = await post(url(token), '', {});
        expect([bad.status, errorCode(bad)]).toEqual([401, 'CALLBACK_TOKEN_INVALID']);
        expect(bad.text).not.toContain('mitto-token');
        const badGet = await fetch(url(token));
        expect(badGet.status).toBe(401);
      }
      const ok = await post(url('mitto-token'), '', {});
      expect(ok.status).toBe(200);
      await waitUntil('Mitto event', () => byProviderId('mitto-1').length === 1);
      expect(byProviderId('mitto-1')[0]?.status).toMatchObject({
        messageId: '301',
        status: 'FAILED',
        reason: 'invalid-recipient',
        errorCode: '8',
        occurredAt: '2026-01-01T00:00:00.000Z',
      });
      // GET, as when the URL is registered with method GET.
      const delivered = new URLSearchParams({
        id: 'mitto-2',
        reference: '302',
        status: 'delivered',
        timestamp: '2026-01-01T00:00:01Z',
      });
      const viaGet = await fetch(url('mitto-token', delivered));
      expect(viaGet.status).toBe(200);
      expect(await viaGet.json()).toEqual({ published: 1, ignored: 0 });
      await waitUntil('Mitto GET event', () => byProviderId('mitto-2').length === 1);
      expect(byProviderId('mitto-2')[0]?.status).toMatchObject({ messageId: '302', status: 'DELIVERED' });
      // A form body (POST) is read like the query.
      const form = await post(
        url('mitto-token', new URLSearchParams()),
        new URLSearchParams({
          id: 'mitto-3',
          reference: '303',
          status: 'delivered',
          timestamp: '2026-01-01T00:00:02Z',
        }).toString(),
        { 'content-type': 'application/x-www-form-urlencoded' },
      );
      expect(form.status).toBe(200);
      await waitUntil('Mitto form event', () => byProviderId('mitto-3').length === 1);
    });

    it('names the bad parameter of a Mitto report (400)', async () => {
      const answer = await fetch(
        `${ingest.url}/v1/callbacks/mitto/cred_mitto?ums_token=mitto-token&id=m&status=gone&timestamp=2026-01-01T00:00:00Z`,
      );
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('CALLBACK_MALFORMED');
      expect(body.error.message).toContain("status: unknown status 'gone'");
      const missing = await post(
        `${ingest.url}/v1/callbacks/mitto/cred_mitto?ums_token=mitto-token&id=m`,
        '',
        {},
      );
      expect([missing.status, errorCode(missing)]).toEqual([400, 'CALLBACK_MALFORMED']);
      expect(missing.text).toContain('timestamp');
    });

    it('refuses callbacks for a credential without a callback secret', async () => {
      const body = JSON.stringify({ events: [] });
      const answer = await post(`${ingest.url}/v1/callbacks/simulator/cred_nosecret`, body, {
        'content-type': 'application/json',
        'x-sim-signature': hubSignature('', body),
      });
      expect([answer.status, errorCode(answer)]).toEqual([400, 'SIGNATURE_INVALID']);
    });

    it('accepts exactly what the provider simulator posts, for every provider it calls back', async () => {
      const put = async (id: string, settings: Record<string, unknown>): Promise<void> => {
        const response = await fetch(`${simulator.url}/_sim/credentials/${id}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(settings),
        });
        expect([200, 201]).toContain(response.status);
      };
      const callbacks = { delayMs: 10, duplicateRate: 0.2, outOfOrderRate: 0.2 };
      await put('sim-native', {
        provider: 'simulator',
        callbackUrl: `${ingest.url}/v1/callbacks/simulator/cred_sim`,
        callbackSecret: 'sim-secret',
        callbacks: { ...callbacks, failedRate: 0.1 },
      });
      await put('sim-wa', {
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '1065' },
        callbackUrl: `${ingest.url}/v1/callbacks/whatsapp/cred_wa`,
        callbackSecret: 'meta-app-secret',
        callbacks,
      });
      await put('sim-tw', {
        provider: 'twilio',
        account: { accountSid: `AC${'0'.repeat(31)}7` },
        callbackSecret: 'tw-auth-token',
        callbacks: { delayMs: 10 },
      });
      await put('sim-mitto', {
        provider: 'mitto',
        account: { from: 'ACME' },
        callbackUrl: `${ingest.url}/v1/callbacks/mitto/cred_mitto`,
        callbackSecret: 'mitto-token',
        callbacks: { delayMs: 10 },
      });
      const json = { 'content-type': 'application/json' };
      const native = Array.from({ length: 200 }, (_, i) => ({
        messageId: String(5000 + i),
        to: `+4915200${i}`,
        channel: 'sms',
      }));
      expect(
        (
          await post(
            `${simulator.url}/sim/v1/messages`,
            JSON.stringify({ credentialId: 'sim-native', messages: native }),
            json,
          )
        ).status,
      ).toBe(200);
      for (let i = 0; i < 5; i++) {
        const sent = await post(
          `${simulator.url}/v21.0/1065/messages`,
          JSON.stringify({
            messaging_product: 'whatsapp',
            to: `49151000010${i}`,
            type: 'text',
            text: { body: 'Hi' },
            biz_opaque_callback_data: String(6000 + i),
          }),
          { ...json, authorization: 'Bearer t' },
        );
        expect(sent.status).toBe(200);
      }
      const twilio = await post(
        `${simulator.url}/2010-04-01/Accounts/AC${'0'.repeat(31)}7/Messages.json`,
        new URLSearchParams({
          To: '+4915100000020',
          From: '+15017122661',
          Body: 'Hi',
          StatusCallback: `${ingest.url}/v1/callbacks/twilio/cred_tw?ums_message_id=7000`,
        }).toString(),
        {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`AC${'0'.repeat(31)}7:tw-auth-token`).toString('base64')}`,
        },
      );
      expect(twilio.status).toBe(201);
      const mitto = await post(
        `${simulator.url}/sms`,
        JSON.stringify({ from: 'ACME', to: '4915100000030', text: 'Hi', reference: '8000' }),
        { ...json, 'x-mitto-api-key': 'k' },
      );
      expect(mitto.status).toBe(200);

      const mine = (low: number, high: number): ProviderEventV1[] =>
        events.filter((e) => Number(e.status?.messageId) >= low && Number(e.status?.messageId) < high);
      // Every scheduled status was posted and acknowledged (the simulator retries anything not 2xx).
      const settled = async (id: string): Promise<boolean> => {
        const stats = (await (await fetch(`${simulator.url}/_sim/stats?credentialId=${id}`)).json()) as {
          callbacks: { scheduled: number; delivered: number; failedPosts: number; pending: number };
        };
        return (
          stats.callbacks.pending === 0 &&
          stats.callbacks.delivered === stats.callbacks.scheduled &&
          stats.callbacks.failedPosts === 0
        );
      };
      for (const id of ['sim-native', 'sim-wa', 'sim-tw', 'sim-mitto']) {
        await waitUntil(`${id} callbacks acknowledged`, () => settled(id), { timeoutMs: 60_000 });
      }
      const stats = (await (await fetch(`${simulator.url}/_sim/stats`)).json()) as {
        callbacks: { delivered: number };
      };
      // 200 native sends: sent plus delivered or failed, with duplicates; 5 WhatsApp: sent, delivered, read.
      expect(stats.callbacks.delivered).toBeGreaterThanOrEqual(200 * 2 + 5 * 3 + 2 + 1);
      await waitUntil('all statuses on Kafka', () => mine(5000, 9000).length >= stats.callbacks.delivered);
      // Every status the simulator had acknowledged is on the topic. There may be more: a post answered
      // 503 (or too late for the simulator) whose publish still landed is retried, and the consumer
      // absorbs the copies.
      expect(mine(5000, 9000).length).toBeGreaterThanOrEqual(stats.callbacks.delivered);
      // Each native message was reported sent, then delivered or failed (duplicates on top).
      for (const m of native) {
        const reported = new Set(
          mine(5000, 5200)
            .filter((e) => e.status?.messageId === m.messageId)
            .map((e) => String(e.status?.status)),
        );
        expect(reported.has('SENT')).toBe(true);
        expect(reported.has('DELIVERED') !== reported.has('FAILED')).toBe(true);
      }
      expect(
        new Set(
          mine(6000, 6005)
            .filter((e) => e.status?.status === 'READ')
            .map((e) => e.status?.messageId),
        ).size,
      ).toBe(5);
      expect([...new Set(mine(7000, 7001).map((e) => e.status?.status))]).toEqual(['SENT', 'DELIVERED']);
      expect([...new Set(mine(8000, 8001).map((e) => e.status?.status))]).toEqual(['DELIVERED']);
    });
  });
});
