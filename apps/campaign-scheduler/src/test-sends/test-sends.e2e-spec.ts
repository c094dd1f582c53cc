import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AllTopics } from '@ums/contracts';
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
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const TENANT = 'tenant-tests';
const OTHER_TENANT = 'tenant-other';
const PER_MINUTE = 3;

/** One message as the sender put it in a request to the simulator (`POST /sim/v1/messages`). */
interface ProviderMessage {
  readonly messageId: string;
  readonly to: string;
  readonly text: string;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A loopback HTTP relay in front of the provider simulator: forwards every request as it is and keeps
 * the messages the sender asked the provider to send, so the test sees the content that reached it.
 */
async function startRecordingRelay(
  target: string,
): Promise<{ server: Server; url: string; sent: ProviderMessage[] }> {
  const sent: ProviderMessage[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      if (request.url === '/sim/v1/messages') {
        const parsed = JSON.parse(body.toString('utf8')) as { messages: ProviderMessage[] };
        sent.push(...parsed.messages.map(({ messageId, to, text }) => ({ messageId, to, text })));
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name))
          headers[name] = value;
      }
      const answer = await fetch(`${target}${request.url ?? '/'}`, {
        method: request.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const text = await answer.text();
      response.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'text/plain',
      });
      response.end(text);
    })().catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

/**
 * Test sends against the real path: the campaign-scheduler and notification-sender processes sending
 * through the provider simulator (behind a relay that keeps what reached it). A test send renders the
 * campaign's template per recipient, sends each once on the priority lane and never touches a run.
 */
describe('test sends (scheduler, sender and provider simulator processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let simulator: SimulatorClient;
  let scheduler: ServiceProcess;
  let relay: Awaited<ReturnType<typeof startRecordingRelay>>;
  let key = '';
  let otherKey = '';
  let campaignId = '';
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('test_sends');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    const env = serviceEnv(db.settings.database, namespace);
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      const started = await startServiceProcess({ app, env: { ...env, ...extra } });
      processes.push(started);
      return started;
    };
    const simulatorProcess = await start('provider-simulator', { LOG_LEVEL: 'error' });
    simulator = new SimulatorClient(simulatorProcess.url);
    relay = await startRecordingRelay(simulatorProcess.url);
    [scheduler] = await Promise.all([
      start('campaign-scheduler', { TEST_SENDS_PER_MINUTE: String(PER_MINUTE) }),
      start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `t:${namespace}:` }),
    ]);
    await insertSimulatorCredential(db.settings, {
      id: 'cred_test',
      tenantId: TENANT,
      baseUrl: relay.url,
      ceilingPerSec: 100,
      floorPerSec: 10,
    });
    await simulator.putCredential('cred_test', { provider: 'simulator', callbacks: { enabled: false } });
    key = await createTenantKey(scheduler.url, TENANT);
    otherKey = await createTenantKey(scheduler.url, OTHER_TENANT);
    campaignId = await createCampaign('Spring offers');
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await new Promise((resolve) => relay?.server.close(resolve));
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  async function createCampaign(name: string): Promise<string> {
    const created = await jsonCall(
      scheduler.url,
      'POST',
      '/v1/campaigns',
      {
        name,
        channel: 'sms',
        credentialId: 'cred_test',
        template: { text: 'Hi {{name}}, your code is {{code}}' },
        defaultCountry: 'DE',
        schedule: { kind: 'now' },
      },
      key,
    );
    expect(created.status).toBe(201);
    return String(created.body['id']);
  }

  function testSend(
    campaign: string,
    body: unknown,
    idempotencyKey?: string,
    as: string = key,
  ): Promise<JsonAnswer> {
    const headers: Record<string, string> =
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey };
    return jsonCall(scheduler.url, 'POST', `/v1/campaigns/${campaign}/test-sends`, body, as, headers);
  }

  async function count(sql: string, params: unknown[]): Promise<number> {
    const [row] = (await ds.query(sql, params)) as { n: string | number }[];
    return Number(row?.n);
  }

  const THREE = {
    recipients: [
      { to: '0151 23456701', variables: { name: 'Ada' } },
      { to: '+4915123456702', variables: { name: 'Grace' } },
      { to: '+4915123456703', variables: { name: 'Linus', code: '9' } },
    ],
    variables: { code: '1' },
  };

  it('sends a DRAFT campaign to three recipients exactly once each, rendered, and shows the results', async () => {
    const first = await testSend(campaignId, THREE, 'spring-test-1');
    expect(first.status).toBe(202);
    const recipients = first.body['recipients'] as Record<string, unknown>[];
    expect(recipients.map((r) => [r['position'], r['recipient'], r['state']])).toEqual([
      [0, '+4915123456701', 'PENDING'],
      [1, '+4915123456702', 'PENDING'],
      [2, '+4915123456703', 'PENDING'],
    ]);
    const testSendId = String(first.body['id']);
    const path = `/v1/campaigns/${campaignId}/test-sends/${testSendId}`;
    let shown: JsonAnswer | undefined;
    await waitUntil(
      'the three test messages sent',
      async () => {
        shown = await jsonCall(scheduler.url, 'GET', path, undefined, key);
        const states = (shown.body['recipients'] as { state: string }[]).map((r) => r.state);
        return states.length === 3 && states.every((s) => s === 'SENT' || s === 'DELIVERED');
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const results = (shown?.body['recipients'] ?? []) as Record<string, unknown>[];
    expect(results.map((r) => [r['recipient'], r['errorCode'], typeof r['sentAt']])).toEqual([
      ['+4915123456701', null, 'string'],
      ['+4915123456702', null, 'string'],
      ['+4915123456703', null, 'string'],
    ]);

    // Each message reached the provider once, with the campaign's text rendered for its recipient.
    const ids = results.map((r) => String(r['messageId']));
    expect([...relay.sent].sort((a, b) => a.to.localeCompare(b.to))).toEqual([
      { messageId: ids[0], to: '+4915123456701', text: 'Hi Ada, your code is 1' },
      { messageId: ids[1], to: '+4915123456702', text: 'Hi Grace, your code is 1' },
      { messageId: ids[2], to: '+4915123456703', text: 'Hi Linus, your code is 9' },
    ]);
    const stats = await simulator.stats('cred_test');
    expect([stats.accepted, stats.distinctMessages, stats.duplicates]).toEqual([3, 3, 0]);

    // Single sends of the campaign on the priority lane; the campaign stays a DRAFT without a run.
    const rows = (await ds.query(
      `SELECT run_id, lane, campaign_id, idempotency_key FROM messages WHERE tenant_id = ? ORDER BY id`,
      [TENANT],
    )) as Record<string, unknown>[];
    expect(rows).toEqual(
      [0, 1, 2].map((i) => ({
        run_id: null,
        lane: 'priority',
        campaign_id: campaignId,
        idempotency_key: `test-send:${testSendId}:${i}`,
      })),
    );
    const campaign = await jsonCall(scheduler.url, 'GET', `/v1/campaigns/${campaignId}`, undefined, key);
    expect([campaign.body['state'], campaign.body['runs']]).toEqual(['DRAFT', []]);
    expect(await count('SELECT COUNT(*) AS n FROM runs WHERE campaign_id = ?', [campaignId])).toBe(0);

    // The same request again with its Idempotency-Key: the first answer, nothing stored or sent again.
    const retry = await testSend(campaignId, THREE, 'spring-test-1');
    expect([retry.status, retry.body]).toEqual([202, first.body]);
    const list = await jsonCall(
      scheduler.url,
      'GET',
      `/v1/campaigns/${campaignId}/test-sends`,
      undefined,
      key,
    );
    expect(list.status).toBe(200);
    expect((list.body['items'] as { id: string }[]).map((t) => t.id)).toEqual([testSendId]);
    expect(list.body['nextAfter']).toBeNull();
    expect(await count('SELECT COUNT(*) AS n FROM messages WHERE tenant_id = ?', [TENANT])).toBe(3);
    expect(relay.sent).toHaveLength(3);
    expect((await simulator.stats('cred_test')).accepted).toBe(3);
  });

  it('refuses bad test sends naming the field, storing and sending nothing', async () => {
    const before = await count('SELECT COUNT(*) AS n FROM messages WHERE tenant_id = ?', [TENANT]);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ to: `+49151234567${String(10 + i)}` }));
    const cases: [string, unknown, number, string, string][] = [
      [
        '11 recipients',
        { recipients: eleven, variables: { name: 'x', code: 'y' } },
        400,
        'VALIDATION_FAILED',
        'recipients',
      ],
      ['no recipients', { recipients: [] }, 400, 'VALIDATION_FAILED', 'recipients'],
      [
        'an invalid phone',
        { recipients: [{ to: '+4915123456701' }, { to: '12' }], variables: { name: 'x', code: 'y' } },
        400,
        'TEST_SEND_RECIPIENTS_INVALID',
        'recipients[1].to',
      ],
      [
        'a repeated recipient',
        {
          recipients: [{ to: '+4915123456701' }, { to: '0151 23456701' }],
          variables: { name: 'x', code: 'y' },
        },
        400,
        'TEST_SEND_RECIPIENTS_INVALID',
        'recipients[1].to',
      ],
      [
        'a missing variable',
        { recipients: [{ to: '+4915123456701', variables: { code: '1' } }] },
        400,
        'VARIABLES_MISSING',
        'recipients[0].variables',
      ],
      ['a body tenant', { ...THREE, tenantId: OTHER_TENANT }, 400, 'VALIDATION_FAILED', 'tenantId'],
    ];
    const failures: string[] = [];
    for (const [label, body, status, code, field] of cases) {
      const answer = await testSend(campaignId, body);
      const error = answer.body['error'] as { code?: string; fields?: { field: string }[] } | undefined;
      const fields = (error?.fields ?? []).map((f) => f.field);
      if (answer.status !== status || error?.code !== code || !fields.includes(field)) {
        failures.push(
          `${label}: ${answer.status} ${answer.text.slice(0, 300)}, expected ${status} ${code} ${field}`,
        );
      }
    }
    expect(failures).toEqual([]);
    const missing = await testSend(campaignId, {
      recipients: [{ to: '+4915123456701', variables: { code: '1' } }],
    });
    expect((missing.body['error'] as { fields: { reason: string }[] }).fields).toEqual([
      { field: 'recipients[0].variables', reason: 'lacks name' },
    ]);

    // Another tenant's campaign is a missing one, to send and to read.
    const foreign = await testSend(campaignId, THREE, undefined, otherKey);
    expect([foreign.status, (foreign.body['error'] as { code: string }).code]).toEqual([
      404,
      'CAMPAIGN_NOT_FOUND',
    ]);
    const read = await jsonCall(
      scheduler.url,
      'GET',
      `/v1/campaigns/${campaignId}/test-sends`,
      undefined,
      otherKey,
    );
    expect(read.status).toBe(404);

    // An ARCHIVED campaign takes none.
    const archived = await createCampaign('Archived');
    await ds.query(`UPDATE campaigns SET state = 'ARCHIVED' WHERE id = ?`, [archived]);
    const refused = await testSend(archived, THREE);
    expect([refused.status, (refused.body['error'] as { code: string }).code]).toEqual([
      409,
      'TEST_SEND_CAMPAIGN_ARCHIVED',
    ]);

    expect(await count('SELECT COUNT(*) AS n FROM messages WHERE tenant_id = ?', [TENANT])).toBe(before);
    expect(await count('SELECT COUNT(*) AS n FROM test_sends WHERE tenant_id = ?', [TENANT])).toBe(1);
  });

  it(`refuses more than ${PER_MINUTE} test sends per tenant and minute with 429`, async () => {
    const one = (i: number) => ({
      recipients: [{ to: `+491512345679${i}`, variables: { name: 'R', code: String(i) } }],
    });
    // At once, more than the bound leaves: the first test send of this suite counts, so exactly
    // PER_MINUTE - 1 of these pass, whichever replica connection takes them, and the others are 429.
    const answers = await Promise.all(
      Array.from({ length: PER_MINUTE + 1 }, (_, i) => testSend(campaignId, one(i))),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([
      ...Array.from({ length: PER_MINUTE - 1 }, () => 202),
      ...Array.from({ length: 2 }, () => 429),
    ]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect((refused.body['error'] as { code: string }).code).toBe('TEST_SEND_RATE_LIMITED');
    }
    expect(await count('SELECT COUNT(*) AS n FROM test_sends WHERE tenant_id = ?', [TENANT])).toBe(
      PER_MINUTE,
    );
    // Newest first, paged.
    const page = await jsonCall(
      scheduler.url,
      'GET',
      `/v1/campaigns/${campaignId}/test-sends?limit=2`,
      undefined,
      key,
    );
    const ids = (page.body['items'] as { id: string }[]).map((t) => Number(t.id));
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBeGreaterThan(ids[1] as number);
    expect(page.body['nextAfter']).toBe(String(ids[1]));
  });
});
