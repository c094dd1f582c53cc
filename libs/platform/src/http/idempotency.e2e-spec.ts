import { createHash, randomBytes } from 'node:crypto';
import { AllTopics, HttpErrorCode, IdempotencyErrorCode } from '@ums/contracts';
import {
  createTenantKey,
  createTestDatabase,
  jsonCall,
  type JsonAnswer,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
} from '@ums/testing';
import type { DataSource } from 'typeorm';
import { ensureTopics } from '../kafka/kafka-admin.service';
import { KafkaNames } from '../kafka/kafka-names';
import { createDataSource } from '../mysql/data-source-options';
import { runPendingMigrations } from '../mysql/migration-runner';

jest.setTimeout(180_000);

/** One create route: where it is, a body marked with `mark`, and how to count what it created. */
interface CreateRoute {
  readonly service: 'scheduler' | 'dispatcher';
  readonly path: string;
  readonly table: string;
  /** The column holding the body's mark. */
  readonly column: string;
  readonly body: (mark: string, tenant: 'a' | 'b') => Record<string, unknown>;
}

const ROUTES: readonly CreateRoute[] = [
  {
    service: 'scheduler',
    path: '/v1/campaigns',
    table: 'campaigns',
    column: 'name',
    body: (mark, tenant) => ({
      name: mark,
      channel: 'sms',
      credentialId: `cred_${tenant}`,
      template: { text: 'Hi {{name}}' },
      schedule: { kind: 'now' },
    }),
  },
  {
    service: 'scheduler',
    path: '/v1/credentials',
    table: 'credentials',
    column: 'name',
    body: (mark) => ({
      name: mark,
      provider: 'simulator',
      channel: 'sms',
      secret: 'idempotent-secret',
      rateCeilingPerSec: 10,
      rateFloorPerSec: 1,
    }),
  },
  {
    service: 'scheduler',
    path: '/v1/api-keys',
    table: 'api_keys',
    column: 'name',
    body: (mark) => ({ name: mark, scopes: ['campaigns:read'] }),
  },
  {
    service: 'dispatcher',
    path: '/v1/subscribers',
    table: 'subscribers',
    column: 'url',
    // A public address, given as one (no name to resolve); nothing is ever sent to it here.
    body: (mark) => ({ url: `https://93.184.215.14/hook/${mark}`, eventTypes: ['message.status'] }),
  },
];

const TENANTS = { a: 'idem-a', b: 'idem-b' } as const;

/** The same object with its keys in reverse order (the same JSON value, another text). */
function reordered(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).reverse());
}

/**
 * Idempotency keys on every create route of the campaign-scheduler and the webhook-dispatcher, against
 * the service processes and their database: a retry answers the first answer and creates nothing, another
 * body with the key is refused, concurrent requests with one key create once, and keys are per tenant.
 */
describe('Idempotency-Key on create routes (scheduler and dispatcher processes)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let scheduler: ServiceProcess;
  let dispatcher: ServiceProcess;
  const keys = { a: '', b: '' };

  beforeAll(async () => {
    database = await createTestDatabase('ums_idempotency');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_a', ?, 'sms a', 'simulator', 'sms', '{}', 100, 1),
              ('cred_b', ?, 'sms b', 'simulator', 'sms', '{}', 100, 1)`,
      [TENANTS.a, TENANTS.b],
    );
    const env = serviceEnv(database.settings.database, namespace);
    [scheduler, dispatcher] = await Promise.all([
      startServiceProcess({ app: 'campaign-scheduler', env }),
      startServiceProcess({ app: 'webhook-dispatcher', env }),
    ]);
    [keys.a, keys.b] = await Promise.all([
      createTenantKey(scheduler.url, TENANTS.a),
      createTenantKey(scheduler.url, TENANTS.b),
    ]);
  });

  afterAll(async () => {
    await Promise.all([scheduler?.process.stop(), dispatcher?.process.stop()]);
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  function call(
    route: CreateRoute,
    body: unknown,
    idempotencyKey?: string,
    tenant: 'a' | 'b' = 'a',
  ): Promise<JsonAnswer> {
    const url = route.service === 'scheduler' ? scheduler.url : dispatcher.url;
    const headers: Record<string, string> =
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey };
    return jsonCall(url, 'POST', route.path, body, keys[tenant], headers);
  }

  async function created(route: CreateRoute, mark: string, tenant: 'a' | 'b' = 'a'): Promise<number> {
    const column = route.column === 'url' ? `https://93.184.215.14/hook/${mark}` : mark;
    const [row] = (await ds.query(
      `SELECT COUNT(*) AS n FROM \`${route.table}\` WHERE tenant_id = ? AND \`${route.column}\` = ?`,
      [TENANTS[tenant], column],
    )) as { n: string | number }[];
    return Number(row?.n);
  }

  const mark = (label: string): string => `${label}-${randomBytes(4).toString('hex')}`;

  describe.each(ROUTES)('POST $path', (route) => {
    it('answers a retry with the same key and body with the first answer, creating once', async () => {
      const name = mark('retry');
      const key = `k-${name}`;
      const first = await call(route, route.body(name, 'a'), key);
      expect(first.status).toBe(201);
      // The same JSON value, its keys in another order: the same request.
      const retry = await call(route, reordered(route.body(name, 'a')), key);
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(await created(route, name)).toBe(1);
    });

    it('refuses the key with another body (422) and keeps keys apart per tenant', async () => {
      const name = mark('reuse');
      const key = `k-${name}`;
      const first = await call(route, route.body(name, 'a'), key);
      expect(first.status).toBe(201);
      const other = await call(route, route.body(`${name}-other`, 'a'), key);
      expect(other.status).toBe(422);
      expect(other.body['error']).toMatchObject({ code: IdempotencyErrorCode.KeyReused });
      expect(await created(route, `${name}-other`)).toBe(0);

      // Tenant B's same key and body is B's own request: created anew, in B.
      const foreign = await call(route, route.body(name, 'b'), key, 'b');
      expect(foreign.status).toBe(201);
      expect(foreign.body['id']).not.toEqual(first.body['id']);
      expect(await created(route, name, 'b')).toBe(1);
      expect(await created(route, name, 'a')).toBe(1);
    });

    it('creates on every call without a key', async () => {
      const name = mark('plain');
      const answers = [await call(route, route.body(name, 'a')), await call(route, route.body(name, 'a'))];
      expect(answers.map((a) => a.status)).toEqual([201, 201]);
      expect(answers[0]?.body['id']).not.toEqual(answers[1]?.body['id']);
      expect(await created(route, name)).toBe(2);
    });

    it('lets exactly one of concurrent requests with one key take effect', async () => {
      const name = mark('race');
      const key = `k-${name}`;
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => call(route, route.body(name, 'a'), key)),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      const ok = answers.filter((a) => a.status === 201);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ok.map((a) => String(a.body['id']))).size).toBe(1);
      for (const refused of answers.filter((a) => a.status === 409)) {
        expect(refused.body['error']).toMatchObject({ code: IdempotencyErrorCode.KeyInProgress });
      }
      expect(await created(route, name)).toBe(1);
      // Once the first has answered, a retry gets its answer.
      const retry = await call(route, route.body(name, 'a'), key);
      expect(retry.status).toBe(201);
      expect(retry.body['id']).toEqual(ok[0]?.body['id']);
    });
  });

  const apiKeys = ROUTES[2] as CreateRoute;

  it('answers 409 while the first request holds the key, and runs a request whose holder died', async () => {
    const name = mark('held');
    const key = `k-${name}`;
    const body = { name };
    // The row of a request still running (or whose process died), as the first request writes it; the
    // fingerprint is the SHA-256 of the body as canonical JSON, computed here from its definition.
    const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    await ds.query(
      `INSERT INTO idempotency_keys (tenant_id, route, idem_key, request_hash, state, claim, created_at, expires_at)
       VALUES (?, 'POST /v1/api-keys', ?, ?, 'IN_PROGRESS', '01HZZZZZZZZZZZZZZZZZZZZZZZ', UTC_TIMESTAMP(3),
               UTC_TIMESTAMP(3) + INTERVAL 1 DAY)`,
      [TENANTS.a, key, hash],
    );
    const held = await call(apiKeys, body, key);
    expect(held.status).toBe(409);
    expect(held.body['error']).toMatchObject({ code: IdempotencyErrorCode.KeyInProgress });
    expect(await created(apiKeys, name)).toBe(0);

    // Its holder went silent for longer than the lease (60 s): the next request runs, once.
    await ds.query(
      `UPDATE idempotency_keys SET created_at = UTC_TIMESTAMP(3) - INTERVAL 2 MINUTE WHERE idem_key = ?`,
      [key],
    );
    const taken = await call(apiKeys, body, key);
    expect(taken.status).toBe(201);
    expect((await call(apiKeys, body, key)).body).toEqual(taken.body);
    expect(await created(apiKeys, name)).toBe(1);
  });

  it('does not keep a failed request: the key may be retried with a corrected body', async () => {
    const credentials = ROUTES[1] as CreateRoute;
    const name = mark('fixed');
    const key = `k-${name}`;
    const refused = await call(credentials, { ...credentials.body(name, 'a'), channel: 'fax' }, key);
    expect(refused.status).toBe(400);
    const fixed = await call(credentials, credentials.body(name, 'a'), key);
    expect(fixed.status).toBe(201);
    expect(await created(credentials, name)).toBe(1);
  });

  it('takes a key again once it expired, whatever the body', async () => {
    const name = mark('expired');
    const key = `k-${name}`;
    expect((await call(apiKeys, { name }, key)).status).toBe(201);
    await ds.query(
      `UPDATE idempotency_keys SET expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE idem_key = ?`,
      [key],
    );
    const again = await call(apiKeys, { name: `${name}-2` }, key);
    expect(again.status).toBe(201);
    expect(await created(apiKeys, `${name}-2`)).toBe(1);
  });

  it('counts the operator acting for a tenant as that tenant, and keys per route', async () => {
    const name = mark('operator');
    const key = `k-${name}`;
    const byOperator = await jsonCall(scheduler.url, 'POST', '/v1/api-keys', { name }, TEST_OPERATOR_KEY, {
      'idempotency-key': key,
      'x-ums-tenant': TENANTS.a,
    });
    expect(byOperator.status).toBe(201);
    const byTenant = await call(apiKeys, { name }, key);
    expect(byTenant.body).toEqual(byOperator.body);
    expect(await created(apiKeys, name)).toBe(1);
    // The same key on another route names another request.
    const credentials = ROUTES[1] as CreateRoute;
    expect((await call(credentials, credentials.body(name, 'a'), key)).status).toBe(201);
  });

  it('keys a route with path parameters on the path: one key to two campaigns is two requests', async () => {
    const campaign = ROUTES[0] as CreateRoute;
    const newCampaign = async (label: string): Promise<string> => {
      const answer = await call(campaign, campaign.body(mark(label), 'a'));
      expect(answer.status).toBe(201);
      return String(answer.body['id']);
    };
    const [a, b] = [await newCampaign('path-a'), await newCampaign('path-b')];
    const key = `k-${mark('path')}`;
    const body = { recipients: [{ to: '+4915100000001', variables: { name: 'Ada' } }] };
    const testSend = (campaignId: string): Promise<JsonAnswer> =>
      jsonCall(scheduler.url, 'POST', `/v1/campaigns/${campaignId}/test-sends`, body, keys.a, {
        'idempotency-key': key,
      });
    const first = await testSend(a);
    expect([first.status, first.body['campaignId']]).toEqual([202, a]);
    const other = await testSend(b);
    expect([other.status, other.body['campaignId']]).toEqual([202, b]);
    expect(other.body['id']).not.toEqual(first.body['id']);
    // The same path again is a retry: the first answer, nothing new.
    expect((await testSend(a)).body).toEqual(first.body);
    const rows = (await ds.query(
      'SELECT campaign_id AS campaignId FROM test_sends WHERE campaign_id IN (?, ?) ORDER BY id',
      [a, b],
    )) as { campaignId: string }[];
    expect(rows.map((r) => r.campaignId)).toEqual([a, b]);
  });

  it('stores answers sealed: a created key token is not in the table', async () => {
    const name = mark('sealed');
    const answer = await call(apiKeys, { name }, `k-${name}`);
    const token = String(answer.body['key']);
    expect(token).toMatch(/^umsk_/);
    const [row] = (await ds.query('SELECT response FROM idempotency_keys WHERE idem_key = ?', [
      `k-${name}`,
    ])) as { response: string }[];
    expect(row?.response).toMatch(/^v1:/);
    expect(row?.response).not.toContain(token.slice(32));
  });

  it('refuses a bad Idempotency-Key naming the header, never with a 500', async () => {
    const cases: [string, string][] = [
      ['k'.repeat(256), 'must be at most 255 characters, got 256'],
      ['', 'must not be empty'],
      ['k\u00e9y', 'must be printable ASCII (space to ~)'],
    ];
    for (const [key, reason] of cases) {
      // fetch refuses a header value outside Latin-1, and sends é as one byte: the service sees it as such.
      const answer = await call(apiKeys, { name: mark('bad') }, key);
      expect([answer.status, answer.body['error']]).toEqual([
        400,
        expect.objectContaining({
          code: IdempotencyErrorCode.KeyInvalid,
          fields: [{ field: 'Idempotency-Key', reason }],
        }),
      ]);
    }
    const operatorWithout = await jsonCall(
      scheduler.url,
      'POST',
      '/v1/api-keys',
      { name: 'x' },
      TEST_OPERATOR_KEY,
      {
        'idempotency-key': 'k-no-tenant',
      },
    );
    expect(operatorWithout.status).toBe(400);
    expect(operatorWithout.body['error']).toMatchObject({ code: HttpErrorCode.TenantRequired });
  });
});
