import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AllTopics, type SendRequestV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTenantKey,
  createTestDatabase,
  insertSimulatorCredential,
  jsonCall,
  type JsonAnswer,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const TENANT = 'tenant-http';

/** A CSV file server on loopback: the audience of a send by URL. */
async function startCsvServer(csv: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/csv' }).end(csv);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/audience.csv` };
}

/**
 * POST /v1/messages and POST /v1/sends against the whole path: the campaign-scheduler, batch-expander and
 * notification-sender processes, sending to the provider simulator, which counts every accepted send.
 */
describe('HTTP sends (scheduler, expander, sender and provider simulator processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let producer: Producer;
  let simulator: SimulatorClient;
  let scheduler: ServiceProcess;
  let csvServer: Awaited<ReturnType<typeof startCsvServer>>;
  let key = '';
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('http_sends');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const env = serviceEnv(db.settings.database, namespace);
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      const started = await startServiceProcess({ app, env: { ...env, ...extra } });
      processes.push(started);
      return started;
    };
    const simulatorProcess = await start('provider-simulator', { LOG_LEVEL: 'error' });
    simulator = new SimulatorClient(simulatorProcess.url);
    [scheduler] = await Promise.all([
      start('campaign-scheduler', {
        SCHEDULER_TICK_MS: '200',
        SWEEPER_TICK_MS: '200',
        AUDIENCE_URL_ALLOW_PRIVATE: 'true',
      }),
      start('batch-expander', { EXPANDER_POLL_MS: '100' }),
      start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `t:${namespace}:` }),
    ]);
    for (const id of ['cred_one', 'cred_kafka', 'cred_plain', 'cred_race', 'cred_inline', 'cred_url']) {
      await insertSimulatorCredential(db.settings, {
        id,
        tenantId: TENANT,
        baseUrl: simulatorProcess.url,
        ceilingPerSec: 500,
        floorPerSec: 50,
      });
      await simulator.putCredential(id, { provider: 'simulator', callbacks: { enabled: false } });
    }
    await insertSimulatorCredential(db.settings, {
      id: 'cred_mail',
      tenantId: TENANT,
      baseUrl: simulatorProcess.url,
      ceilingPerSec: 10,
      floorPerSec: 1,
      channel: 'email',
    });
    await ds.query(
      `INSERT INTO opt_outs (tenant_id, channel, address, source) VALUES (?, 'sms', '+4915199999999', 'STOP')`,
      [TENANT],
    );
    key = await createTenantKey(scheduler.url, TENANT);
    csvServer = await startCsvServer(
      `phone,code\n${Array.from({ length: 20 }, (_, i) => `+49151${String(30_000_000 + i)},${i}`).join('\n')}\n`,
    );
    producer = testKafka().producer();
    await producer.connect();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await producer?.disconnect();
    await new Promise((resolve) => csvServer?.server.close(resolve));
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  function post(path: string, body: unknown, idempotencyKey?: string): Promise<JsonAnswer> {
    const headers: Record<string, string> =
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey };
    return jsonCall(scheduler.url, 'POST', path, body, key, headers);
  }

  const message = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    channel: 'sms',
    credentialId: 'cred_one',
    content: { text: 'Your code is {{code}}' },
    recipient: { address: '0151 23456789', variables: { code: '4711' } },
    defaultCountry: 'DE',
    ...over,
  });

  /** Waits until the simulator has accepted `count` sends of the credential and its messages are SENT. */
  async function sentBy(credentialId: string, count: number): Promise<void> {
    await waitUntil(
      `${count} sends of ${credentialId} accepted and recorded`,
      async () => {
        const [row] = (await ds.query(
          `SELECT SUM(state = 'SENT') AS sent FROM messages WHERE credential_id = ?`,
          [credentialId],
        )) as { sent: string | number | null }[];
        return Number(row?.sent ?? 0) >= count && (await simulator.stats(credentialId)).accepted >= count;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
  }

  async function count(sql: string, params: unknown[]): Promise<number> {
    const [row] = (await ds.query(sql, params)) as { n: string | number }[];
    return Number(row?.n);
  }

  it('sends one message on the priority lane exactly once, also when retried with the same key', async () => {
    const first = await post('/v1/messages', message(), 'order-1001');
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      requestId: 'order-1001',
      messageId: expect.stringMatching(/^[1-9][0-9]*$/),
      status: 'PENDING',
    });
    const retry = await post('/v1/messages', message(), 'order-1001');
    expect([retry.status, retry.body]).toEqual([202, first.body]);
    await sentBy('cred_one', 1);
    // Once more after it was sent: the same answer, nothing sent again.
    expect((await post('/v1/messages', message(), 'order-1001')).body).toEqual(first.body);
    const rows = (await ds.query(
      `SELECT id, state, lane, recipient FROM messages WHERE tenant_id = ? AND idempotency_key = 'order-1001'`,
      [TENANT],
    )) as Record<string, unknown>[];
    expect(rows.map((r) => [String(r['id']), r['state'], r['lane'], r['recipient']])).toEqual([
      [first.body['messageId'], 'SENT', 'priority', '+4915123456789'],
    ]);
    const stats = await simulator.stats('cred_one');
    expect([stats.accepted, stats.distinctMessages, stats.duplicates]).toEqual([1, 1, 0]);

    const other = await post('/v1/messages', message({ content: { text: 'Code {{code}}' } }), 'order-1001');
    expect(other.status).toBe(422);
    expect(other.body['error']).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('is the send a producer made on Kafka with the key as its requestId', async () => {
    const request: SendRequestV1 = {
      ...(message({ credentialId: 'cred_kafka' }) as unknown as SendRequestV1),
      requestId: 'kafka-then-http',
      kind: 'single' as SendRequestV1['kind'],
      tenantId: TENANT,
      requestedAt: new Date().toISOString(),
    };
    await producer.send({
      topic: names.topic(Topics.sendRequests.name),
      acks: -1,
      messages: [{ key: TENANT, value: JSON.stringify(request) }],
    });
    await sentBy('cred_kafka', 1);
    const [row] = (await ds.query(
      `SELECT id FROM messages WHERE tenant_id = ? AND idempotency_key = 'kafka-then-http'`,
      [TENANT],
    )) as { id: string }[];
    const http = await post('/v1/messages', message({ credentialId: 'cred_kafka' }), 'kafka-then-http');
    expect(http.status).toBe(202);
    expect(http.body).toEqual({ requestId: 'kafka-then-http', messageId: String(row?.id), status: 'SENT' });
    expect((await simulator.stats('cred_kafka')).accepted).toBe(1);
  });

  it('makes every call without a key a new send, and skips an opted-out recipient', async () => {
    const plain = message({ credentialId: 'cred_plain' });
    const answers = [await post('/v1/messages', plain), await post('/v1/messages', plain)];
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    expect(answers[0]?.body['requestId']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(answers[0]?.body['messageId']).not.toEqual(answers[1]?.body['messageId']);
    await sentBy('cred_plain', 2);
    const stats = await simulator.stats('cred_plain');
    expect([stats.accepted, stats.distinctMessages, stats.duplicates]).toEqual([2, 2, 0]);

    const skipped = await post(
      '/v1/messages',
      message({ recipient: { address: '+4915199999999', variables: { code: '1' } } }),
      'opted-out-1',
    );
    expect(skipped.status).toBe(202);
    expect(skipped.body['status']).toBe('SKIPPED');
    const [row] = (await ds.query('SELECT state, reason FROM messages WHERE id = ?', [
      skipped.body['messageId'],
    ])) as Record<string, unknown>[];
    expect(row).toEqual({ state: 'SKIPPED', reason: 'opted-out' });
  });

  it('refuses bad single sends with 400 naming the field, storing nothing and never answering 500', async () => {
    const before = await count('SELECT COUNT(*) AS n FROM messages WHERE tenant_id = ?', [TENANT]);
    const cases: [Record<string, unknown>, string, string][] = [
      [message({ channel: 'fax' }), 'VALIDATION_FAILED', 'channel'],
      [message({ recipient: undefined }), 'VALIDATION_FAILED', 'recipient'],
      [message({ content: 'hello' }), 'VALIDATION_FAILED', 'content'],
      [message({ defaultCountry: 'Germany' }), 'VALIDATION_FAILED', 'defaultCountry'],
      [message({ tenantId: 'tenant-b' }), 'VALIDATION_FAILED', 'tenantId'],
      [
        message({ recipient: { address: '12', variables: { code: '1' } } }),
        'RECIPIENT_INVALID',
        'recipient.address',
      ],
      [message({ recipient: { address: '0151 23456789' } }), 'VARIABLES_MISSING', 'recipient.variables'],
      [message({ content: { text: 'Code {{code' } }), 'TEMPLATE_INVALID', 'content.text'],
      [message({ credentialId: 'cred_nope' }), 'CREDENTIAL_NOT_FOUND', 'credentialId'],
      [message({ credentialId: 'cred_mail' }), 'CREDENTIAL_CHANNEL_MISMATCH', 'credentialId'],
    ];
    const failures: string[] = [];
    for (const [body, code, field] of cases) {
      const answer = await post('/v1/messages', body, `bad-${code}-${field}`);
      const error = answer.body['error'] as { code?: string; fields?: { field: string }[] } | undefined;
      const fields = (error?.fields ?? []).map((f) => f.field);
      if (answer.status !== 400 || error?.code !== code || !fields.includes(field)) {
        failures.push(`${field}: ${answer.status} ${answer.text}, expected 400 ${code}`);
      }
    }
    const tooLong = await post('/v1/messages', message(), 'k'.repeat(256));
    expect([tooLong.status, tooLong.body['error']]).toEqual([
      400,
      expect.objectContaining({
        code: 'IDEMPOTENCY_KEY_INVALID',
        fields: [expect.objectContaining({ field: 'Idempotency-Key' })],
      }),
    ]);
    expect(failures).toEqual([]);
    expect(await count('SELECT COUNT(*) AS n FROM messages WHERE tenant_id = ?', [TENANT])).toBe(before);
  });

  /** Waits until the campaign is COMPLETED; returns its messages by state. */
  async function completed(campaignId: string): Promise<Record<string, number>> {
    await waitUntil(
      `campaign ${campaignId} completed`,
      async () => {
        const [row] = (await ds.query('SELECT state FROM campaigns WHERE id = ?', [campaignId])) as {
          state: string;
        }[];
        return row?.state === 'COMPLETED';
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const rows = (await ds.query(
      'SELECT state, COUNT(*) AS n FROM messages WHERE campaign_id = ? GROUP BY state',
      [campaignId],
    )) as { state: string; n: string | number }[];
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  const bulk = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    campaignName: 'Codes',
    channel: 'sms',
    credentialId: 'cred_inline',
    content: { text: 'Code {{code}}' },
    defaultCountry: 'DE',
    recipients: [
      ...Array.from({ length: 28 }, (_, i) => ({
        address: `0151 ${String(40_000_000 + i)}`,
        variables: { code: String(i) },
      })),
      { address: '12', variables: { code: 'x' } },
      { address: '0151 40000099' },
    ],
    ...over,
  });

  it('starts a bulk send from inline recipients in one call, once, and runs it to completion', async () => {
    const first = await post('/v1/sends', bulk(), 'bulk-inline-1');
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      requestId: 'bulk-inline-1',
      campaignId: expect.stringMatching(/^cmp_[0-9A-Z]{26}$/),
      runId: expect.stringMatching(/^[1-9][0-9]*$/),
      audienceImportId: expect.stringMatching(/^[1-9][0-9]*$/),
    });
    const retry = await post('/v1/sends', bulk(), 'bulk-inline-1');
    expect([retry.status, retry.body]).toEqual([202, first.body]);
    const campaignId = String(first.body['campaignId']);
    expect(await completed(campaignId)).toEqual({ SENT: 28 });
    const stats = await simulator.stats('cred_inline');
    expect([stats.accepted, stats.duplicates]).toEqual([28, 0]);
    const imported = await jsonCall(
      scheduler.url,
      'GET',
      `/v1/campaigns/${campaignId}/audience/imports/${String(first.body['audienceImportId'])}`,
      undefined,
      key,
    );
    expect(imported.body).toMatchObject({ source: 'request', rowsAccepted: 28, rowsRejected: 2 });
    expect(
      await count('SELECT COUNT(*) AS n FROM campaigns WHERE tenant_id = ? AND source_request_id = ?', [
        TENANT,
        'bulk-inline-1',
      ]),
    ).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM runs WHERE campaign_id = ?', [campaignId])).toBe(1);
  });

  it('starts a bulk send from an audience URL in one call and runs it to completion', async () => {
    const answer = await post(
      '/v1/sends',
      bulk({ credentialId: 'cred_url', recipients: undefined, audienceUrl: csvServer.url }),
      'bulk-url-1',
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ requestId: 'bulk-url-1', audienceImportId: expect.any(String) });
    expect(await completed(String(answer.body['campaignId']))).toEqual({ SENT: 20 });
    const stats = await simulator.stats('cred_url');
    expect([stats.accepted, stats.duplicates]).toEqual([20, 0]);
  });

  it('lets exactly one of concurrent sends with one key take effect, on both routes', async () => {
    const single = message({ credentialId: 'cred_race' });
    const many = bulk({ credentialId: 'cred_race', sendAt: '2099-01-01T00:00:00Z' });
    const [singles, bulks] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => post('/v1/messages', single, 'race-single'))),
      Promise.all(Array.from({ length: 6 }, () => post('/v1/sends', many, 'race-bulk'))),
    ]);
    for (const answers of [singles, bulks]) {
      expect(answers.every((a) => a.status === 202 || a.status === 409)).toBe(true);
      const ok = answers.filter((a) => a.status === 202);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ok.map((a) => JSON.stringify(a.body))).size).toBe(1);
      for (const refused of answers.filter((a) => a.status === 409)) {
        expect(refused.body['error']).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
      }
    }
    await sentBy('cred_race', 1);
    expect((await simulator.stats('cred_race')).accepted).toBe(1);
    expect(
      await count('SELECT COUNT(*) AS n FROM campaigns WHERE tenant_id = ? AND source_request_id = ?', [
        TENANT,
        'race-bulk',
      ]),
    ).toBe(1);
    const reused = await post(
      '/v1/sends',
      bulk({ credentialId: 'cred_race', campaignName: 'Other' }),
      'race-bulk',
    );
    expect([reused.status, reused.body['error']]).toEqual([
      422,
      expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED' }),
    ]);
  });

  it('refuses bad bulk sends with 400 naming the field, creating no campaign and never answering 500', async () => {
    const before = await count('SELECT COUNT(*) AS n FROM campaigns WHERE tenant_id = ?', [TENANT]);
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({
      address: `+49151${String(50_000_000 + i)}`,
    }));
    const cases: [Record<string, unknown>, string, string][] = [
      [bulk({ audienceUrl: csvServer.url }), 'VALIDATION_FAILED', 'audienceUrl'],
      [bulk({ recipients: undefined }), 'VALIDATION_FAILED', 'recipients'],
      [bulk({ recipients: [] }), 'VALIDATION_FAILED', 'recipients'],
      [bulk({ recipients: tooMany }), 'VALIDATION_FAILED', 'recipients'],
      [bulk({ recipients: [{ variables: { code: '1' } }] }), 'VALIDATION_FAILED', 'recipients[0].address'],
      [
        bulk({ recipients: undefined, audienceUrl: 'ftp://files.example/list.csv' }),
        'VALIDATION_FAILED',
        'audienceUrl',
      ],
      [bulk({ campaignName: undefined }), 'VALIDATION_FAILED', 'campaignName'],
      [bulk({ sendAt: '2099-01-01T09:00:00' }), 'VALIDATION_FAILED', 'sendAt'],
      [bulk({ content: { text: 'Code {{code' } }), 'TEMPLATE_INVALID', 'content.text'],
      [
        bulk({ channel: 'email', credentialId: 'cred_mail', content: { text: 'Hi' } }),
        'TEMPLATE_INVALID',
        'content.subject',
      ],
      [bulk({ credentialId: 'cred_nope' }), 'CREDENTIAL_NOT_FOUND', 'credentialId'],
    ];
    const failures: string[] = [];
    for (const [body, code, field] of cases) {
      const answer = await post('/v1/sends', body);
      const error = answer.body['error'] as { code?: string; fields?: { field: string }[] } | undefined;
      const fields = (error?.fields ?? []).map((f) => f.field);
      if (answer.status !== 400 || error?.code !== code || !fields.includes(field)) {
        failures.push(`${field}: ${answer.status} ${answer.text.slice(0, 300)}, expected 400 ${code}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await count('SELECT COUNT(*) AS n FROM campaigns WHERE tenant_id = ?', [TENANT])).toBe(before);
  });
});
