import { randomBytes } from 'node:crypto';
import {
  AllTopics,
  type DeadLetterV1,
  type MessageBatchV1,
  type MessageStatusV1,
  type SendRequestV1,
  Topics,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  BatchProbe,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testBrokers,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

describe('send requests from producers (scheduler + expander processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let producer: Producer;
  let consumer: Consumer;
  let probe: BatchProbe;
  const processes: ServiceProcess[] = [];
  const seen: { priority: MessageBatchV1[]; status: MessageStatusV1[]; dead: DeadLetterV1[] } = {
    priority: [],
    status: [],
    dead: [],
  };

  beforeAll(async () => {
    db = await createTestDatabase('send_requests');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_sms', 'tenant-a', 'sms', 'simulator', 'sms', '{}', 100, 1)`,
    );
    await ds.query(
      `INSERT INTO opt_outs (tenant_id, channel, address, source) VALUES ('tenant-a', 'sms', '+4915123456790', 'STOP')`,
    );
    const env = {
      ...serviceEnv(db.settings.database, namespace),
      SCHEDULER_TICK_MS: '200',
      SWEEPER_TICK_MS: '200',
    };
    processes.push(await startServiceProcess({ app: 'campaign-scheduler', env }));
    processes.push(
      await startServiceProcess({ app: 'batch-expander', env: { ...env, EXPANDER_POLL_MS: '100' } }),
    );
    probe = await BatchProbe.start({
      brokers: testBrokers(),
      topic: names.topic(Topics.batches.name),
      groupId: 'probe',
      finishIn: db.settings,
    });
    consumer = testKafka().consumer({ groupId: 'observer' });
    await consumer.connect();
    await consumer.subscribe({
      topics: [Topics.prioritySends, Topics.messageStatus, Topics.deadLetters].map((t) =>
        names.topic(t.name),
      ),
      fromBeginning: true,
    });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const value: unknown = JSON.parse(String(message.value));
        if (topic === names.topic(Topics.prioritySends.name)) seen.priority.push(value as MessageBatchV1);
        if (topic === names.topic(Topics.messageStatus.name)) seen.status.push(value as MessageStatusV1);
        if (topic === names.topic(Topics.deadLetters.name)) seen.dead.push(value as DeadLetterV1);
        await Promise.resolve();
      },
    });
    producer = testKafka().producer();
    await producer.connect();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await Promise.all([producer?.disconnect(), consumer?.disconnect(), probe?.stop()]);
    await ds?.destroy();
    await db?.drop();
  });

  async function send(values: (SendRequestV1 | string)[], key = 'tenant-a'): Promise<void> {
    await producer.send({
      topic: names.topic(Topics.sendRequests.name),
      acks: -1,
      messages: values.map((v) => ({ key, value: typeof v === 'string' ? v : JSON.stringify(v) })),
    });
  }

  const single = (requestId: string, address: string, over: Partial<SendRequestV1> = {}): SendRequestV1 => ({
    requestId,
    kind: 'single' as SendRequestV1['kind'],
    tenantId: 'tenant-a',
    channel: 'sms' as SendRequestV1['channel'],
    credentialId: 'cred_sms',
    content: { text: 'Your code is {{code}}' },
    recipient: { address, variables: { code: '4711' } },
    defaultCountry: 'DE',
    requestedAt: new Date().toISOString(),
    ...over,
  });

  it('dead-letters refused requests with their reason without blocking the partition, and sends single messages on the priority lane once', async () => {
    // All on one key, so one partition: the valid request after the poison ones must still go through.
    await send([
      'not json at all',
      JSON.stringify({ requestId: 'r-schema', kind: 'single' }),
      single('r-cred', '0151 23456789', { credentialId: 'cred_other' }),
      single('r-phone', '12'),
      single('r-vars', '0151 23456789', { recipient: { address: '0151 23456789' } }),
      single('r-ok', '0151 23456789'),
      single('r-ok', '0151 23456789'), // the producer retried
      single('r-optout', '0151 23456790'),
    ]);
    await waitUntil('priority batch published', () => seen.priority.length >= 1, { timeoutMs: 30_000 });
    await waitUntil('five dead letters', () => seen.dead.length >= 5, { timeoutMs: 30_000 });
    // The opted-out request is the partition's last: its row exists once its skip is published
    // (reading the rows before that raced it, and lost on MySQL 9.7).
    await waitUntil('skip reported', () => seen.status.find((s) => s.status === 'SKIPPED'), {
      timeoutMs: 30_000,
    });
    const codes = seen.dead.map((d) => d.errorCode).sort();
    expect(codes).toEqual(
      [
        'CREDENTIAL_NOT_FOUND',
        'INVALID_JSON',
        'RECIPIENT_INVALID',
        'SCHEMA_VIOLATION',
        'VARIABLES_MISSING',
      ].sort(),
    );
    expect(seen.dead.find((d) => d.errorCode === 'VARIABLES_MISSING')?.reason).toMatch(/code/);

    // Requests of one partition are handled several at once (the consumer's concurrency), so the
    // insert order, and with it the id order, is not the publish order: sort by request id.
    const rows = (await ds.query(
      `SELECT id, state, lane, recipient, run_id, idempotency_key, reason FROM messages WHERE tenant_id = 'tenant-a' ORDER BY idempotency_key`,
    )) as Record<string, unknown>[];
    expect(
      rows.map((r) => [r['idempotency_key'], r['state'], r['lane'], r['recipient'], r['run_id']]),
    ).toEqual([
      ['r-ok', 'PENDING', 'priority', '+4915123456789', null],
      ['r-optout', 'SKIPPED', 'priority', '+4915123456790', null],
    ]);
    const batch = seen.priority[0] as MessageBatchV1;
    expect(batch).toMatchObject({
      lane: 'priority',
      tenantId: 'tenant-a',
      credentialId: 'cred_sms',
      content: { text: 'Your code is {{code}}' },
      items: [
        { messageId: String(rows[0]?.['id']), recipient: '+4915123456789', variables: { code: '4711' } },
      ],
    });
    expect(seen.status.find((s) => s.status === 'SKIPPED')).toMatchObject({
      messageId: String(rows[1]?.['id']),
      reason: 'opted-out',
    });
  });

  it('turns a bulk request into a campaign with its audience and run, once', async () => {
    const recipients = Array.from({ length: 250 }, (_, i) => ({
      address: `+49151${String(20_000_000 + i)}`,
      variables: { code: String(i) },
    }));
    const bulk: SendRequestV1 = {
      requestId: 'bulk-1',
      kind: 'bulk' as SendRequestV1['kind'],
      tenantId: 'tenant-a',
      channel: 'sms' as SendRequestV1['channel'],
      credentialId: 'cred_sms',
      campaignName: 'Codes',
      content: { text: 'Code {{code}}' },
      recipients,
      requestedAt: new Date().toISOString(),
    };
    await send([bulk, bulk]);
    const campaign = await waitUntil(
      'campaign completed',
      async () => {
        const found = (await ds.query(
          `SELECT id, state FROM campaigns WHERE tenant_id = 'tenant-a' AND source_request_id = 'bulk-1'`,
        )) as { id: string; state: string }[];
        return found.length === 1 && found[0]?.state === 'COMPLETED' ? found[0] : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const [counts] = (await ds.query(
      `SELECT COUNT(*) AS n, SUM(state = 'SENT') AS sent FROM messages WHERE campaign_id = ?`,
      [campaign.id],
    )) as Record<string, unknown>[];
    expect(Number(counts?.['n'])).toBe(250);
    expect(Number(counts?.['sent'])).toBe(250);
    const runs = (await ds.query('SELECT id FROM runs WHERE campaign_id = ?', [campaign.id])) as unknown[];
    expect(runs).toHaveLength(1);
  });
});
