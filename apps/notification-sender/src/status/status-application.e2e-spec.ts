import { createHmac, randomBytes } from 'node:crypto';
import {
  AllTopics,
  type DeadLetterV1,
  type InboundMessageV1,
  type MessageStatusV1,
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
  createTestDatabase,
  seedCampaign,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_SECRETS_KEYS,
  testKafka,
  waitUntil,
} from '@ums/testing';
import { CloudEvent, Kafka as CloudEventsKafka, type KafkaMessage } from 'cloudevents';
import type { Consumer, IHeaders } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(240_000);

const MESSAGES = 300;
// Signatures computed here from the documented rules, not by the code under test.
/** Kafka headers as text, as a CloudEvents SDK takes them. */
function textHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (value !== undefined) out[name] = String(value);
  return out;
}
const hubSignature = (secret: string, raw: string): string =>
  `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`;
const twilioSignature = (token: string, url: string, form: URLSearchParams): string =>
  createHmac('sha1', token)
    .update(
      url +
        [...form.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => k + v)
          .join(''),
      'utf8',
    )
    .digest('base64');

describe('provider callbacks applied end to end (webhook-ingest + notification-sender processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let consumer: Consumer;
  const processes: ServiceProcess[] = [];
  let ingestUrl = '';
  let runId = '';
  let ids: string[] = [];
  const seen = {
    status: [] as MessageStatusV1[],
    inbound: [] as InboundMessageV1[],
    dead: [] as DeadLetterV1[],
    /** Status and inbound records as they are on the topic, for a reader without our classes. */
    records: [] as { topic: string; key: string; value: string; headers: Record<string, string> }[],
  };

  beforeAll(async () => {
    db = await createTestDatabase('status_e2e');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const keys = parseSecretKeys(TEST_SECRETS_KEYS);
    if (!('keys' in keys)) throw new Error(keys.error);
    const box = new SecretBox(keys.keys);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext, callback_secret_ciphertext,
                                rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_sim', 'acme', 'sim', 'simulator', 'sms', '{"baseUrl":"http://127.0.0.1:1"}', NULL, ?, 100, 1),
              ('cred_tw', 'acme', 'tw', 'twilio', 'sms', '{"baseUrl":"http://127.0.0.1:1","accountSid":"AC00000000000000000000000000000000"}', ?, NULL, 100, 1),
              ('cred_wa', 'acme', 'wa', 'whatsapp-cloud', 'whatsapp', '{"baseUrl":"http://127.0.0.1:1","phoneNumberId":"1065"}',
               ?, ?, 100, 1)`,
      [
        box.seal('sim-secret'),
        box.seal('tw-auth-token'),
        box.seal('access-token'),
        box.seal('meta-app-secret'),
      ],
    );
    await seedCampaign(db.settings, {
      campaignId: 'cmp_cb',
      tenantId: 'acme',
      credentialId: 'cred_sim',
      contacts: MESSAGES,
    });
    const run = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, sent, unknown) VALUES ('cmp_cb', UTC_TIMESTAMP(3), 'RUNNING', ?, ?, 10)`,
      [MESSAGES, MESSAGES - 10],
    )) as { insertId: number };
    runId = String(run.insertId);
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, 'acme', id, 'sms', 'cred_sim', address, 'bulk', 'SENT' FROM contacts WHERE campaign_id = 'cmp_cb'`,
      [runId],
    );
    ids = (
      (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [runId])) as { id: string }[]
    ).map((r) => String(r.id));
    // The last ten claims timed out: UNKNOWN, to be settled by their callbacks.
    await ds.query(`UPDATE messages SET state = 'UNKNOWN' WHERE id IN (?)`, [ids.slice(-10)]);

    const namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    consumer = testKafka().consumer({ groupId: 'status-observer' });
    await consumer.connect();
    await consumer.subscribe({
      topics: [Topics.messageStatus, Topics.inboundMessages, Topics.deadLetters].map((t) =>
        names.topic(t.name),
      ),
      fromBeginning: true,
    });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const value: unknown = JSON.parse(String(message.value));
        if (topic === names.topic(Topics.messageStatus.name)) seen.status.push(value as MessageStatusV1);
        if (topic === names.topic(Topics.inboundMessages.name)) seen.inbound.push(value as InboundMessageV1);
        if (topic === names.topic(Topics.deadLetters.name)) seen.dead.push(value as DeadLetterV1);
        else {
          const logical = names.logicalTopic(topic) ?? topic;
          const headers = textHeaders(message.headers);
          seen.records.push({
            topic: logical,
            key: String(message.key),
            value: String(message.value),
            headers,
          });
        }
        await Promise.resolve();
      },
    });
    const env = serviceEnv(db.settings.database, namespace);
    const ingest = await startServiceProcess({ app: 'webhook-ingest', env });
    ingestUrl = ingest.url;
    processes.push(ingest, await startServiceProcess({ app: 'notification-sender', env }));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await consumer?.disconnect();
    await ds?.destroy();
    await db?.drop();
  });

  /** Run counters trail the rows by one fold (SENDER_COUNTER_FOLD_MS): wait until the run has no deltas left. */
  async function countersFolded(run: string): Promise<void> {
    await waitUntil(
      'run counters folded',
      async () => {
        const [row] = (await ds.query('SELECT COUNT(*) AS n FROM run_counter_deltas WHERE run_id = ?', [
          run,
        ])) as { n: string | number }[];
        return Number(row?.n) === 0;
      },
      { timeoutMs: 10_000 },
    );
  }

  /** A signed Twilio incoming message from +4915199999999 to cred_tw, as Twilio posts it; ingest answers 200. */
  async function postTwilioInbound(sid: string, text: string): Promise<void> {
    const url = `${ingestUrl}/v1/callbacks/twilio/cred_tw`;
    const form = new URLSearchParams({
      AccountSid: `AC${'0'.repeat(32)}`,
      Body: text,
      From: '+4915199999999',
      MessageSid: sid,
      NumMedia: '0',
      SmsStatus: 'received',
      To: '+15017122661',
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature('tw-auth-token', url, form),
      },
      body: form.toString(),
    });
    expect(response.status).toBe(200);
  }

  async function postSimulator(events: readonly Record<string, unknown>[]): Promise<number> {
    const body = JSON.stringify({ events });
    const response = await fetch(`${ingestUrl}/v1/callbacks/simulator/cred_sim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sim-signature': hubSignature('sim-secret', body) },
      body,
    });
    return response.status;
  }

  const event = (
    messageId: string,
    status: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    messageId,
    providerMessageId: `sim-${messageId}`,
    status,
    timestamp: '2026-03-04T05:06:07.089Z',
    ...extra,
  });

  it('applies statuses forward only with counters in step, publishes each change once, dead-letters unknown ids', async () => {
    const failed = ids.slice(0, 20);
    const readFirst = ids.slice(20, 60);
    const rest = ids.slice(60);
    // Posts as providers send them: batched, duplicated, read before delivered, failures, one unknown id.
    const posts: Record<string, unknown>[][] = [
      failed.map((id) => event(id, 'failed', { code: 'INVALID_NUMBER' })),
      readFirst.map((id) => event(id, 'read')),
      [...rest, ...readFirst].map((id) => event(id, 'delivered')),
      rest.slice(0, 100).map((id) => event(id, 'delivered')), // duplicates
      [...rest.slice(0, 50).map((id) => event(id, 'read')), event('999999999', 'delivered')],
      failed.map((id) => event(id, 'delivered')), // after FAILED: absorbed
    ];
    for (const events of posts) expect(await postSimulator(events)).toBe(200);

    const expected = failed.length + readFirst.length + rest.length + 50;
    await waitUntil('status events', () => seen.status.length >= expected, { timeoutMs: 60_000 });
    await waitUntil('dead letter', () => seen.dead.length >= 1, { timeoutMs: 30_000 });
    const rows = (await ds.query('SELECT id, state, reason, error_code FROM messages WHERE run_id = ?', [
      runId,
    ])) as {
      id: string;
      state: string;
      reason: string | null;
      error_code: string | null;
    }[];
    const stateOf = new Map(rows.map((r) => [String(r.id), r]));
    expect(
      failed.every(
        (id) => stateOf.get(id)?.state === 'FAILED' && stateOf.get(id)?.error_code === 'INVALID_NUMBER',
      ),
    ).toBe(true);
    expect(failed.every((id) => stateOf.get(id)?.reason === 'invalid-recipient')).toBe(true);
    expect(readFirst.every((id) => stateOf.get(id)?.state === 'READ')).toBe(true);
    expect(rest.slice(0, 50).every((id) => stateOf.get(id)?.state === 'READ')).toBe(true);
    expect(rest.slice(50).every((id) => stateOf.get(id)?.state === 'DELIVERED')).toBe(true);
    await countersFolded(runId);
    const [counters] = (await ds.query(
      'SELECT sent, delivered, read_count, failed, unknown FROM runs WHERE id = ?',
      [runId],
    )) as Record<string, string>[];
    expect(Object.fromEntries(Object.entries(counters ?? {}).map(([k, v]) => [k, Number(v)]))).toEqual({
      sent: 0,
      delivered: rest.length - 50,
      read_count: readFirst.length + 50,
      failed: failed.length,
      unknown: 0,
    });
    // Each applied change exactly once (eventIds distinct), none for absorbed reports.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(seen.status).toHaveLength(expected);
    expect(new Set(seen.status.map((s) => s.eventId)).size).toBe(expected);
    const unknownSettled = seen.status.filter((s) => s.previousStatus === 'UNKNOWN');
    expect(unknownSettled).toHaveLength(10);
    expect(seen.status.find((s) => s.messageId === readFirst[0])).toMatchObject({
      tenantId: 'acme',
      campaignId: 'cmp_cb',
      runId,
      channel: 'sms',
      status: 'READ',
      previousStatus: 'SENT',
      providerMessageId: `sim-${readFirst[0] ?? ''}`,
      occurredAt: '2026-03-04T05:06:07.089Z',
    });
    expect(seen.dead).toHaveLength(1);
    expect(seen.dead[0]).toMatchObject({
      errorCode: 'MESSAGE_UNKNOWN',
      consumerGroup: 'notification-sender.status',
    });
    expect(seen.dead[0]?.value).toContain('999999999');
  });

  it('applies Meta webhooks: read before delivered, duplicates, a late failure, an unknown id', async () => {
    await seedCampaign(db.settings, {
      campaignId: 'cmp_wa',
      tenantId: 'acme',
      credentialId: 'cred_wa',
      contacts: 4,
      channel: 'whatsapp',
    });
    const created = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, sent) VALUES ('cmp_wa', UTC_TIMESTAMP(3), 'RUNNING', 4, 4)`,
    )) as { insertId: number };
    const waRun = String(created.insertId);
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, 'acme', id, 'whatsapp', 'cred_wa', address, 'bulk', 'SENT' FROM contacts WHERE campaign_id = 'cmp_wa'`,
      [waRun],
    );
    const [a, b, c] = (
      (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [waRun])) as { id: string }[]
    ).map((r) => String(r.id)) as [string, string, string];
    const status = (
      id: string,
      value: string,
      extra: Record<string, unknown> = {},
    ): Record<string, unknown> => ({
      id: `wamid.${id}`,
      status: value,
      timestamp: '1767225600',
      recipient_id: '4915100000001',
      biz_opaque_callback_data: id,
      ...extra,
    });
    const webhook = (statuses: Record<string, unknown>[]): string =>
      JSON.stringify({
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
                  statuses,
                },
              },
            ],
          },
        ],
      });
    const posts = [
      webhook([status(a, 'read'), status(b, 'delivered'), status(b, 'delivered')]),
      webhook([
        status(a, 'delivered'),
        status(c, 'failed', { errors: [{ code: 131026, title: 'Message undeliverable' }] }),
      ]),
      webhook([
        status(b, 'failed', { errors: [{ code: 131000, title: 'Something went wrong' }] }),
        status('88888888', 'read'),
      ]),
      webhook([status(b, 'read'), status(b, 'read')]),
    ];
    // Counted before posting: the dead letter can arrive while the later posts are still answered.
    const before = seen.dead.length;
    for (const body of posts) {
      const response = await fetch(`${ingestUrl}/v1/callbacks/whatsapp/cred_wa`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': hubSignature('meta-app-secret', body),
        },
        body,
      });
      expect(response.status).toBe(200);
    }
    await waitUntil(
      'the unknown id dead-lettered',
      () => seen.dead.length > before && seen.status.filter((e) => e.campaignId === 'cmp_wa').length >= 4,
      {
        timeoutMs: 30_000,
      },
    );
    const rows = (await ds.query(
      'SELECT id, state, reason, error_code, read_at FROM messages WHERE run_id = ? ORDER BY id',
      [waRun],
    )) as {
      id: string;
      state: string;
      reason: string | null;
      error_code: string | null;
      read_at: Date | null;
    }[];
    expect(rows.map((r) => [r.state, r.reason, r.error_code])).toEqual([
      ['READ', null, null],
      ['READ', null, null],
      ['FAILED', 'invalid-recipient', '131026'],
      ['SENT', null, null],
    ]);
    expect(rows[0]?.read_at?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    await countersFolded(waRun);
    const [counters] = (await ds.query('SELECT sent, delivered, read_count, failed FROM runs WHERE id = ?', [
      waRun,
    ])) as Record<string, string>[];
    expect(Object.values(counters ?? {}).map(Number)).toEqual([1, 0, 2, 1]);
    // Messages sit on different partitions, so compare the changes without their order across messages.
    const changes = seen.status
      .filter((e) => e.campaignId === 'cmp_wa')
      .map((e) => `${e.messageId}:${e.previousStatus ?? ''}->${e.status}`)
      .sort();
    expect(changes).toEqual(
      [`${a}:SENT->READ`, `${b}:SENT->DELIVERED`, `${b}:DELIVERED->READ`, `${c}:SENT->FAILED`].sort(),
    );
    expect(seen.dead.slice(before).map((x) => x.errorCode)).toEqual(['MESSAGE_UNKNOWN']);
  });

  it('publishes inbound replies and records STOP as an opt-out for the channel', async () => {
    await postTwilioInbound('SMIN1', 'Hello there');
    await postTwilioInbound('SMIN2', 'stop');
    await waitUntil('inbound events', () => seen.inbound.length >= 2, { timeoutMs: 30_000 });
    expect(seen.inbound.map((i) => [i.providerMessageId, i.optOut, i.tenantId, i.channel])).toEqual([
      ['SMIN1', false, 'acme', 'sms'],
      ['SMIN2', true, 'acme', 'sms'],
    ]);
    const optOuts = (await ds.query('SELECT tenant_id, channel, address, source FROM opt_outs')) as Record<
      string,
      string
    >[];
    expect(optOuts).toEqual([
      { tenant_id: 'acme', channel: 'sms', address: '+4915199999999', source: 'inbound:twilio' },
    ]);
  });

  it('lifts opt-outs on START (and YES on Twilio SMS only), saying so on the inbound event', async () => {
    const whatsapp = async (id: string, text: string): Promise<void> => {
      const body = JSON.stringify({
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
                  messages: [
                    {
                      from: '4915188888888',
                      id,
                      timestamp: '1700000000',
                      type: 'text',
                      text: { body: text },
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      const response = await fetch(`${ingestUrl}/v1/callbacks/whatsapp/cred_wa`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': hubSignature('meta-app-secret', body),
        },
        body,
      });
      expect(response.status).toBe(200);
    };
    const optOuts = async (): Promise<string[]> =>
      (
        (await ds.query('SELECT channel, address FROM opt_outs ORDER BY channel, address')) as {
          channel: string;
          address: string;
        }[]
      ).map((o) => `${o.channel} ${o.address}`);
    const flags = async (id: string): Promise<[boolean, boolean | undefined]> => {
      let event: InboundMessageV1 | undefined;
      await waitUntil(`inbound ${id}`, () => {
        event = seen.inbound.find((i) => i.providerMessageId === id);
        return event !== undefined;
      });
      return [event?.optOut ?? false, event?.optIn];
    };
    // The sms opt-out of the test before, and a new one on WhatsApp.
    await whatsapp('wamid.OPT1', 'STOP');
    expect(await flags('wamid.OPT1')).toEqual([true, false]);
    expect(await optOuts()).toEqual(['sms +4915199999999', 'whatsapp +4915188888888']);
    // YES answers questions on WhatsApp: no opt-in there.
    await whatsapp('wamid.OPT2', 'Yes');
    expect(await flags('wamid.OPT2')).toEqual([false, false]);
    expect(await optOuts()).toHaveLength(2);
    await whatsapp('wamid.OPT3', 'start');
    expect(await flags('wamid.OPT3')).toEqual([false, true]);
    expect(await optOuts()).toEqual(['sms +4915199999999']);
    // On Twilio SMS, YES is one of Twilio's own opt-in keywords.
    await postTwilioInbound('SMIN3', 'YES');
    expect(await flags('SMIN3')).toEqual([false, true]);
    expect(await optOuts()).toEqual([]);
  });

  it('gives every status and inbound record CloudEvents headers that the CloudEvents SDK reads as an event', () => {
    const statusRecords = seen.records.filter((r) => r.topic === Topics.messageStatus.name);
    const inboundRecords = seen.records.filter((r) => r.topic === Topics.inboundMessages.name);
    expect(statusRecords).toHaveLength(seen.status.length);
    expect(inboundRecords).toHaveLength(seen.inbound.length);
    expect(statusRecords.length).toBeGreaterThan(0);
    expect(inboundRecords.length).toBeGreaterThan(0);
    // Read as any CloudEvents consumer would: the SDK's Kafka binding and its own schema check, no class of ours.
    const read = (r: (typeof seen.records)[number]): CloudEvent<Record<string, unknown>> => {
      const message: KafkaMessage<string> = { key: r.key, value: r.value, headers: r.headers, body: r.value };
      const event = CloudEventsKafka.toEvent<Record<string, unknown>>(message);
      if (!(event instanceof CloudEvent)) throw new Error('one CloudEvent per record was expected');
      expect(event.validate()).toBe(true);
      return event;
    };
    for (const record of statusRecords) {
      const event = read(record);
      const data = JSON.parse(record.value) as Record<string, unknown>;
      expect(event).toMatchObject({
        specversion: '1.0',
        id: data['eventId'],
        type: 'io.ums.message.status.v1',
        source: '/ums/notification-sender',
        subject: data['messageId'],
        time: data['occurredAt'],
        datacontenttype: 'application/json',
        data,
      });
    }
    for (const record of inboundRecords) {
      const data = JSON.parse(record.value) as Record<string, unknown>;
      expect(read(record)).toMatchObject({
        id: data['eventId'],
        type: 'io.ums.message.inbound.v1',
        source: '/ums/notification-sender',
        data,
      });
    }
    // ce_id is unique per event, as CloudEvents requires of (source, id).
    expect(new Set(statusRecords.map((r) => r.headers['ce_id'])).size).toBe(statusRecords.length);
  });
});
