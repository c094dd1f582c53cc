import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AllTopics, AuthErrorCode, Scope, TENANT_HEADER } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  parseSecretKeys,
  runPendingMigrations,
  SecretBox,
} from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

const TWILIO_SID = 'AC0123456789abcdef0123456789abcdef';
/** A second Twilio endpoint this deployment allows (an egress proxy, say). */
const TWILIO_PROXY = 'https://twilio-egress.example.com/twilio';
const TWILIO_CONFIG = {
  accountSid: TWILIO_SID,
  messagingServiceSid: 'MG0123456789abcdef0123456789abcdef',
  statusCallbackUrl: 'https://hooks.example.com/v1/callbacks/twilio',
  sandbox: false,
  timeoutMs: 5000,
};

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[] };
}

/** The credentials API of the real service (built from dist/) against a fresh database. */
describe('credentials API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let keyA: string;
  let keyB: string;
  const secretsKeys = `it1:${randomBytes(32).toString('base64')}`;
  const parsedKeys = parseSecretKeys(secretsKeys);
  const box = new SecretBox('keys' in parsedKeys ? parsedKeys.keys : []);
  // Every plaintext secret sent in this suite, to check none of them leaks into responses or logs.
  const sentSecrets: string[] = [];
  const newSecret = (): string => {
    const secret = `tok-${randomBytes(12).toString('hex')}`;
    sentSecrets.push(secret);
    return secret;
  };

  beforeAll(async () => {
    database = await createTestDatabase('ums_credentials');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(database.settings.database, namespace),
        SECRETS_KEYS: secretsKeys,
        PROVIDER_ENDPOINTS_TWILIO: `https://api.twilio.com,${TWILIO_PROXY}`,
        // The simulator off, as on a production deployment (test environments turn it on).
        PROVIDER_SIMULATOR_ENABLED: 'false',
        // Most verbose logging, so the leak check below sees everything the service could log.
        LOG_LEVEL: 'trace',
      },
    });
    keyA = await createTenantKey(service.url, 'tenant-a');
    keyB = await createTenantKey(service.url, 'tenant-b');
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  /** One call with tenant A's key unless another key (or none) is given; `tenant` names one for the operator. */
  async function call(
    method: string,
    path: string,
    body?: unknown,
    key: string | null = keyA,
    tenant?: string,
  ): Promise<Answer> {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === null ? {} : bearer(key)),
        ...(tenant === undefined ? {} : { [TENANT_HEADER]: tenant }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    for (const secret of sentSecrets) expect(text).not.toContain(secret);
    return {
      status: response.status,
      text,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  }

  const valid = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: 'Twilio EU',
    provider: 'twilio',
    channel: 'sms',
    config: TWILIO_CONFIG,
    secret: newSecret(),
    rateCeilingPerSec: 100,
    rateFloorPerSec: 5,
    ...overrides,
  });

  /** Settings and secret each provider accepts (baseUrl left to the deployment's default where it has one). */
  const providerSettings: Record<string, { config: Record<string, unknown>; secret: string }> = {
    'whatsapp-cloud': { config: { phoneNumberId: '106540352242922' }, secret: 'wa-token' },
    twilio: { config: TWILIO_CONFIG, secret: 'tw-token' },
    ses: {
      config: {
        baseUrl: 'https://email.eu-west-1.amazonaws.com',
        region: 'eu-west-1',
        fromAddress: 'News <news@example.com>',
      },
      secret: 'AKIDEXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    },
    mitto: { config: { from: 'ACME' }, secret: 'mitto-key' },
  };

  async function storedRow(id: string): Promise<Record<string, unknown>> {
    const [row] = (await ds.query(
      'SELECT config, secret_ciphertext, verify_token_ciphertext FROM credentials WHERE id = ?',
      [id],
    )) as Record<string, unknown>[];
    if (row === undefined) throw new Error(`no row ${id}`);
    const config = row['config'];
    return { ...row, config: typeof config === 'string' ? (JSON.parse(config) as unknown) : config };
  }

  async function storedCiphertext(id: string): Promise<string | null> {
    const [row] = (await ds.query('SELECT secret_ciphertext FROM credentials WHERE id = ?', [id])) as {
      secret_ciphertext: string | null;
    }[];
    if (row === undefined) throw new Error(`no row ${id}`);
    return row.secret_ciphertext;
  }

  async function countCredentials(): Promise<number> {
    const [row] = (await ds.query('SELECT COUNT(*) AS n FROM credentials')) as { n: string | number }[];
    return Number(row?.n);
  }

  function expectValidationFailure(answer: Answer, field: string): void {
    expect(answer.status).toBe(400);
    const { error } = answer.body as unknown as ErrorBody;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.fields?.map((f) => f.field)).toContain(field);
  }

  it('creates a credential, returns it without its secret and stores the secret sealed', async () => {
    const secret = newSecret();
    const created = await call('POST', '/v1/credentials', valid({ secret, tenantRateCapPerSec: 50 }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cred_[0-9A-HJKMNP-TV-Z]{26}$/),
      tenantId: 'tenant-a',
      name: 'Twilio EU',
      provider: 'twilio',
      channel: 'sms',
      config: { ...TWILIO_CONFIG, baseUrl: 'https://api.twilio.com' },
      hasSecret: true,
      hasCallbackSecret: false,
      hasWebhookVerifyToken: false,
      rateCeilingPerSec: 100,
      rateFloorPerSec: 5,
      tenantRateCapPerSec: 50,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    const id = created.body['id'] as string;

    const sealed = await storedCiphertext(id);
    expect(sealed).not.toBeNull();
    expect(sealed).not.toContain(secret);
    expect(sealed?.startsWith('v1:it1:')).toBe(true);
    expect(box.open(sealed ?? '')).toBe(secret);

    const read = await call('GET', `/v1/credentials/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('seals a callback secret apart from the send secret, replaces it and clears it', async () => {
    const [sendSecret, callbackSecret, nextCallbackSecret] = [newSecret(), newSecret(), newSecret()];
    const created = await call(
      'POST',
      '/v1/credentials',
      valid({
        provider: 'whatsapp-cloud',
        channel: 'whatsapp',
        config: providerSettings['whatsapp-cloud']?.config,
        secret: sendSecret,
        callbackSecret,
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ hasSecret: true, hasCallbackSecret: true });
    expect(created.body).not.toHaveProperty('callbackSecret');
    const id = created.body['id'] as string;
    const sealedCallback = async (): Promise<string | null> => {
      const [row] = (await ds.query('SELECT callback_secret_ciphertext AS c FROM credentials WHERE id = ?', [
        id,
      ])) as { c: string | null }[];
      return row?.c ?? null;
    };
    expect(box.open((await sealedCallback()) ?? '')).toBe(callbackSecret);
    expect(box.open((await storedCiphertext(id)) ?? '')).toBe(sendSecret);

    const replaced = await call('PATCH', `/v1/credentials/${id}`, { callbackSecret: nextCallbackSecret });
    expect(replaced.body).toMatchObject({ hasSecret: true, hasCallbackSecret: true });
    expect(box.open((await sealedCallback()) ?? '')).toBe(nextCallbackSecret);
    // Other fields leave it alone; null clears it.
    await call('PATCH', `/v1/credentials/${id}`, { name: 'renamed' });
    expect(box.open((await sealedCallback()) ?? '')).toBe(nextCallbackSecret);
    const cleared = await call('PATCH', `/v1/credentials/${id}`, { callbackSecret: null });
    expect(cleared.body).toMatchObject({ hasSecret: true, hasCallbackSecret: false });
    expect(await sealedCallback()).toBeNull();
    expectValidationFailure(
      await call('PATCH', `/v1/credentials/${id}`, { callbackSecret: '' }),
      'callbackSecret',
    );
  });

  it('refuses a credential without the secret its provider needs, or with a malformed one', async () => {
    const before = await countCredentials();
    expectValidationFailure(await call('POST', '/v1/credentials', valid({ secret: undefined })), 'secret');
    const ses = { provider: 'ses', channel: 'email', ...providerSettings['ses'] };
    expectValidationFailure(
      await call('POST', '/v1/credentials', valid({ ...ses, secret: 'no-colon' })),
      'secret',
    );
    expect(await countCredentials()).toBe(before);
  });

  it('accepts each provider on its channels only', async () => {
    const pairs: [string, string, number][] = [
      ['whatsapp-cloud', 'whatsapp', 201],
      ['whatsapp-cloud', 'sms', 400],
      ['twilio', 'whatsapp', 201],
      ['twilio', 'email', 400],
      ['ses', 'email', 201],
      ['ses', 'sms', 400],
      ['mitto', 'sms', 201],
      ['mitto', 'whatsapp', 400],
    ];
    for (const [provider, channel, status] of pairs) {
      const answer = await call(
        'POST',
        '/v1/credentials',
        valid({ provider, channel, ...providerSettings[provider] }),
      );
      expect({ provider, channel, status: answer.status }).toEqual({ provider, channel, status });
      if (status === 400) expectValidationFailure(answer, 'channel');
    }
  });

  it('refuses the simulator provider where the deployment has not enabled it', async () => {
    const before = await countCredentials();
    const answer = await call(
      'POST',
      '/v1/credentials',
      valid({ provider: 'simulator', channel: 'sms', config: { baseUrl: 'http://127.0.0.1:3005' } }),
    );
    expectValidationFailure(answer, 'provider');
    expect((answer.body as unknown as ErrorBody).error.fields).toContainEqual({
      field: 'provider',
      reason: 'provider simulator is not enabled on this deployment',
    });
    expect(await countCredentials()).toBe(before);
  });

  it("checks config against the provider's schema when the credential is created, naming each field", async () => {
    const whatsApp = { provider: 'whatsapp-cloud', channel: 'whatsapp' };
    const ses = { provider: 'ses', channel: 'email', ...providerSettings['ses'] };
    const cases: [Record<string, unknown>, string][] = [
      [valid({ config: { ...TWILIO_CONFIG, accountSid: 'AC123' } }), 'config.accountSid'],
      [valid({ config: { ...TWILIO_CONFIG, statusCallbackUrl: undefined } }), 'config.statusCallbackUrl'],
      [valid({ ...whatsApp, config: {} }), 'config.phoneNumberId'],
      [valid({ ...whatsApp, config: { phoneNumberId: '1', apiVersion: '21' } }), 'config.apiVersion'],
      [valid({ provider: 'mitto', channel: 'sms', config: { from: 'has space' } }), 'config.from'],
      // SES has one endpoint per region: the deployment's default is a pattern, so baseUrl is required.
      [valid({ ...ses, config: { region: 'eu-west-1', fromAddress: 'a@example.com' } }), 'config.baseUrl'],
      [valid({ ...ses, config: { ...providerSettings['ses']?.config, region: 'EU' } }), 'config.region'],
    ];
    const before = await countCredentials();
    for (const [body, field] of cases)
      expectValidationFailure(await call('POST', '/v1/credentials', body), field);
    expect(await countCredentials()).toBe(before);
  });

  it("refuses an endpoint that is not on the provider's allowlist", async () => {
    const before = await countCredentials();
    for (const baseUrl of [
      'http://127.0.0.1:9',
      'http://169.254.169.254',
      'https://api.twilio.com.evil.example',
      'https://evil.example/api.twilio.com',
      'https://api.twilio.com@evil.example',
      'https://graph.facebook.com',
      'http://api.twilio.com',
      'https://twilio-egress.example.com',
    ]) {
      const answer = await call('POST', '/v1/credentials', valid({ config: { ...TWILIO_CONFIG, baseUrl } }));
      expectValidationFailure(answer, 'config.baseUrl');
    }
    expect(await countCredentials()).toBe(before);
    const proxied = await call(
      'POST',
      '/v1/credentials',
      valid({ config: { ...TWILIO_CONFIG, baseUrl: TWILIO_PROXY } }),
    );
    expect(proxied.status).toBe(201);
    expect(proxied.body['config']).toMatchObject({ baseUrl: TWILIO_PROXY });
  });

  it('changes the endpoint only with the secret sent again, and only to an allowed one', async () => {
    const created = await call('POST', '/v1/credentials', valid());
    const id = created.body['id'] as string;
    const sealed = await storedCiphertext(id);
    const patch = (body: Record<string, unknown>): Promise<Answer> =>
      call('PATCH', `/v1/credentials/${id}`, body);

    // Without the secret: refused. With one, to a host not on the allowlist: refused. Nothing stored.
    expectValidationFailure(await patch({ config: { ...TWILIO_CONFIG, baseUrl: TWILIO_PROXY } }), 'secret');
    expectValidationFailure(
      await patch({ config: { ...TWILIO_CONFIG, baseUrl: 'http://127.0.0.1:9' }, secret: newSecret() }),
      'config.baseUrl',
    );
    expect(await storedRow(id)).toMatchObject({
      config: { baseUrl: 'https://api.twilio.com' },
      secret_ciphertext: sealed,
    });

    // The same endpoint spelled differently, or settings without baseUrl, keep the endpoint: no secret needed.
    expect((await patch({ config: { ...TWILIO_CONFIG, baseUrl: 'https://API.twilio.com/' } })).status).toBe(
      200,
    );
    const kept = await patch({ config: { ...TWILIO_CONFIG, from: '+15005550006' } });
    expect(kept.status).toBe(200);
    expect(kept.body['config']).toMatchObject({ baseUrl: 'https://API.twilio.com/', from: '+15005550006' });
    expect(await storedCiphertext(id)).toBe(sealed);

    const nextSecret = newSecret();
    const moved = await patch({ config: { ...TWILIO_CONFIG, baseUrl: TWILIO_PROXY }, secret: nextSecret });
    expect(moved.status).toBe(200);
    expect(moved.body['config']).toMatchObject({ baseUrl: TWILIO_PROXY });
    expect(box.open((await storedCiphertext(id)) ?? '')).toBe(nextSecret);
  });

  it('seals a webhook verify token (whatsapp-cloud only), never returns it, replaces a plain one, clears it', async () => {
    const token = newSecret();
    const whatsApp = {
      provider: 'whatsapp-cloud',
      channel: 'whatsapp',
      ...providerSettings['whatsapp-cloud'],
    };
    const created = await call('POST', '/v1/credentials', valid({ ...whatsApp, webhookVerifyToken: token }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ hasWebhookVerifyToken: true });
    expect(created.body).not.toHaveProperty('webhookVerifyToken');
    const id = created.body['id'] as string;
    expect(box.open(String((await storedRow(id))['verify_token_ciphertext']))).toBe(token);

    // A plain token left in config (written before the sealed column) is not shown, and setting one drops it.
    await ds.query(
      `UPDATE credentials SET config = JSON_SET(config, '$.webhookVerifyToken', ?) WHERE id = ?`,
      ['plain-legacy-token', id],
    );
    const read = await call('GET', `/v1/credentials/${id}`);
    expect(read.body['config']).toEqual({
      phoneNumberId: '106540352242922',
      baseUrl: 'https://graph.facebook.com',
    });
    expect(read.text).not.toContain('plain-legacy-token');
    const replacement = newSecret();
    expect((await call('PATCH', `/v1/credentials/${id}`, { webhookVerifyToken: replacement })).status).toBe(
      200,
    );
    const row = await storedRow(id);
    expect(row['config']).not.toHaveProperty('webhookVerifyToken');
    expect(box.open(String(row['verify_token_ciphertext']))).toBe(replacement);

    const cleared = await call('PATCH', `/v1/credentials/${id}`, { webhookVerifyToken: null });
    expect(cleared.body).toMatchObject({ hasWebhookVerifyToken: false });
    expect((await storedRow(id))['verify_token_ciphertext']).toBeNull();
    expectValidationFailure(
      await call('PATCH', `/v1/credentials/${id}`, { webhookVerifyToken: '' }),
      'webhookVerifyToken',
    );
    expectValidationFailure(
      await call('POST', '/v1/credentials', valid({ webhookVerifyToken: newSecret() })),
      'webhookVerifyToken',
    );
  });

  it('refuses invalid input, naming each field, without echoing the secret', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [valid({ provider: 'carrier-pigeon' }), 'provider'],
      [valid({ channel: 'fax' }), 'channel'],
      [valid({ rateFloorPerSec: 101 }), 'rateFloorPerSec'],
      [valid({ rateCeilingPerSec: 0 }), 'rateCeilingPerSec'],
      [valid({ rateCeilingPerSec: 100_001, rateFloorPerSec: 1 }), 'rateCeilingPerSec'],
      [valid({ rateCeilingPerSec: 1.5 }), 'rateCeilingPerSec'],
      [valid({ tenantRateCapPerSec: 0 }), 'tenantRateCapPerSec'],
      [valid({ secret: `${newSecret()}${'x'.repeat(4096)}` }), 'secret'],
      [valid({ secret: '' }), 'secret'],
      [valid({ config: { nested: { a: 1 } } }), 'config'],
      [valid({ config: { authToken: newSecret() } }), 'config'],
      [valid({ config: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }), 'config'],
      // The tenant is the caller's, never named in the body.
      [valid({ tenantId: 'tenant-b' }), 'tenantId'],
      [valid({ name: '' }), 'name'],
      [valid({ unexpected: true }), 'unexpected'],
    ];
    const before = await countCredentials();
    for (const [body, field] of cases) {
      const answer = await call('POST', '/v1/credentials', body);
      expectValidationFailure(answer, field);
    }
    expect(await countCredentials()).toBe(before);
  });

  it("answers 404 CREDENTIAL_NOT_FOUND for an unknown id and for another tenant's, alike, changing nothing", async () => {
    const created = await call('POST', '/v1/credentials', valid({ name: 'tenant A only' }));
    const foreignId = created.body['id'] as string;
    const before = await storedRow(foreignId);
    const missingId = 'cred_01NOPENOPENOPENOPENOPENOPE';
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'taken over' }],
      ['PATCH', { config: { ...TWILIO_CONFIG, baseUrl: TWILIO_PROXY }, secret: newSecret() }],
    ] as const) {
      const missing = await call(method, `/v1/credentials/${missingId}`, body, keyB);
      const foreign = await call(method, `/v1/credentials/${foreignId}`, body, keyB);
      expect(missing.status).toBe(404);
      expect(foreign.status).toBe(404);
      const shape = (answer: Answer, id: string): unknown =>
        JSON.parse(JSON.stringify(answer.body).split(id).join('<id>'));
      expect(shape(foreign, foreignId)).toEqual(shape(missing, missingId));
      expect((foreign.body as unknown as ErrorBody).error.code).toBe('CREDENTIAL_NOT_FOUND');
    }
    expect(await storedRow(foreignId)).toEqual(before);
    expect((await call('GET', `/v1/credentials/${foreignId}`)).body['name']).toBe('tenant A only');
  });

  it("lists only the caller's tenant; the operator lists every tenant or the one it names", async () => {
    const seenBy = async (key: string, tenant?: string): Promise<string[]> => {
      const ids: string[] = [];
      let after: string | null = null;
      do {
        const query = new URLSearchParams({ limit: '500', ...(after === null ? {} : { after }) });
        const page = await call('GET', `/v1/credentials?${query.toString()}`, undefined, key, tenant);
        expect(page.status).toBe(200);
        ids.push(...(page.body['items'] as { id: string }[]).map((item) => item.id));
        after = page.body['nextAfter'] as string | null;
      } while (after !== null);
      return ids;
    };
    const ofA = (await call('POST', '/v1/credentials', valid())).body['id'] as string;
    const ofB = (await call('POST', '/v1/credentials', valid(), keyB)).body['id'] as string;
    const rows = (await ds.query('SELECT id, tenant_id FROM credentials ORDER BY id')) as {
      id: string;
      tenant_id: string;
    }[];
    const idsOf = (tenant: string): string[] =>
      rows.filter((row) => row.tenant_id === tenant).map((row) => row.id);

    expect(await seenBy(keyA)).toEqual(idsOf('tenant-a'));
    expect(await seenBy(keyB)).toEqual(idsOf('tenant-b'));
    expect(await seenBy(keyB)).toContain(ofB);
    expect(await seenBy(keyB)).not.toContain(ofA);
    expect(await seenBy(TEST_OPERATOR_KEY)).toEqual(rows.map((row) => row.id));
    expect(await seenBy(TEST_OPERATOR_KEY, 'tenant-b')).toEqual(idsOf('tenant-b'));
    // The operator reads and changes any tenant's by id.
    expect((await call('GET', `/v1/credentials/${ofB}`, undefined, TEST_OPERATOR_KEY)).status).toBe(200);
    expect(
      (await call('PATCH', `/v1/credentials/${ofB}`, { name: 'renamed by operator' }, TEST_OPERATOR_KEY))
        .status,
    ).toBe(200);
    expect((await call('GET', `/v1/credentials/${ofB}`, undefined, keyB)).body['name']).toBe(
      'renamed by operator',
    );
    expect(
      (await call('GET', `/v1/credentials/${ofB}`, undefined, TEST_OPERATOR_KEY, 'tenant-a')).status,
    ).toBe(404);
  });

  it("creates for the caller's tenant; the operator must name one with X-Ums-Tenant", async () => {
    const asB = await call('POST', '/v1/credentials', valid(), keyB);
    expect(asB.body).toMatchObject({ tenantId: 'tenant-b' });
    const before = await countCredentials();
    const noTenant = await call('POST', '/v1/credentials', valid(), TEST_OPERATOR_KEY);
    expect(noTenant.status).toBe(400);
    expect((noTenant.body as unknown as ErrorBody).error.code).toBe('TENANT_REQUIRED');
    expect(await countCredentials()).toBe(before);
    const forC = await call('POST', '/v1/credentials', valid(), TEST_OPERATOR_KEY, 'tenant-c');
    expect(forC.status).toBe(201);
    expect(forC.body).toMatchObject({ tenantId: 'tenant-c' });
  });

  it('answers 401 without a key and 403 without the scope, changing nothing', async () => {
    const id = (await call('POST', '/v1/credentials', valid())).body['id'] as string;
    const before = await storedRow(id);
    const count = await countCredentials();
    const readOnly = await createTenantKey(service.url, 'tenant-a', [Scope.CredentialsRead]);
    const campaignsOnly = await createTenantKey(service.url, 'tenant-a', [
      Scope.CampaignsRead,
      Scope.CampaignsWrite,
    ]);
    const routes: [string, string, unknown][] = [
      ['GET', '/v1/credentials', undefined],
      ['GET', `/v1/credentials/${id}`, undefined],
      ['POST', '/v1/credentials', valid()],
      ['PATCH', `/v1/credentials/${id}`, { name: 'x' }],
    ];
    for (const [method, path, body] of routes) {
      const anonymous = await call(method, path, body, null);
      expect({ method, path, status: anonymous.status }).toEqual({ method, path, status: 401 });
      expect((anonymous.body as unknown as ErrorBody).error.code).toBe(AuthErrorCode.Missing);
      const unscoped = await call(method, path, body, campaignsOnly);
      expect({ method, path, status: unscoped.status }).toEqual({ method, path, status: 403 });
      expect((unscoped.body as unknown as ErrorBody).error.code).toBe(AuthErrorCode.ScopeMissing);
    }
    expect((await call('GET', `/v1/credentials/${id}`, undefined, readOnly)).status).toBe(200);
    expect((await call('POST', '/v1/credentials', valid(), readOnly)).status).toBe(403);
    expect((await call('PATCH', `/v1/credentials/${id}`, { name: 'x' }, readOnly)).status).toBe(403);
    expect(await storedRow(id)).toEqual(before);
    expect(await countCredentials()).toBe(count);
  });

  it("lists the caller's credentials by id pages, each exactly once", async () => {
    const tenant = `tenant-list-${randomBytes(3).toString('hex')}`;
    const key = await createTenantKey(service.url, tenant);
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      const answer = await call(
        'POST',
        '/v1/credentials',
        valid({ name: `c${i}`, secret: newSecret() }),
        key,
      );
      created.push(answer.body['id'] as string);
    }
    await call('POST', '/v1/credentials', valid());

    const seen: string[] = [];
    const pageSizes: number[] = [];
    let after: string | null = null;
    do {
      const query = new URLSearchParams({ limit: '3', ...(after === null ? {} : { after }) });
      const page = await call('GET', `/v1/credentials?${query.toString()}`, undefined, key);
      expect(page.status).toBe(200);
      const items = page.body['items'] as { id: string; tenantId: string; hasSecret: boolean }[];
      for (const item of items) {
        expect(item).toMatchObject({ tenantId: tenant, hasSecret: true });
        expect(item).not.toHaveProperty('secret');
      }
      seen.push(...items.map((item) => item.id));
      pageSizes.push(items.length);
      after = page.body['nextAfter'] as string | null;
    } while (after !== null);
    expect(pageSizes).toEqual([3, 3, 1]);
    expect(seen).toEqual([...created].sort());

    expectValidationFailure(await call('GET', '/v1/credentials?limit=0', undefined, key), 'limit');
    expectValidationFailure(await call('GET', '/v1/credentials?limit=501', undefined, key), 'limit');
    // The tenant is the key's: naming one is refused, not obeyed.
    expectValidationFailure(
      await call('GET', '/v1/credentials?tenantId=tenant-a', undefined, key),
      'tenantId',
    );
  });

  it('updates name, settings, rates and the secret; refuses immutable fields and bad rates', async () => {
    const firstSecret = newSecret();
    const created = await call('POST', '/v1/credentials', valid({ secret: firstSecret }));
    const id = created.body['id'] as string;
    const firstSealed = await storedCiphertext(id);

    const secondSecret = newSecret();
    // Sends from a number instead of a messaging service.
    const { messagingServiceSid: _dropped, ...twilioSettings } = TWILIO_CONFIG;
    const twilioFrom = { ...twilioSettings, from: '+15005550006' };
    const updated = await call('PATCH', `/v1/credentials/${id}`, {
      name: 'Twilio EU (main)',
      config: twilioFrom,
      secret: secondSecret,
      rateCeilingPerSec: 300,
      rateFloorPerSec: 10,
      tenantRateCapPerSec: 200,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id,
      name: 'Twilio EU (main)',
      config: { ...twilioFrom, baseUrl: 'https://api.twilio.com' },
      hasSecret: true,
      rateCeilingPerSec: 300,
      rateFloorPerSec: 10,
      tenantRateCapPerSec: 200,
      provider: 'twilio',
      channel: 'sms',
      createdAt: created.body['createdAt'],
    });
    expect(updated.body['config']).toEqual({ ...twilioFrom, baseUrl: 'https://api.twilio.com' });
    expect(Date.parse(updated.body['updatedAt'] as string)).toBeGreaterThanOrEqual(
      Date.parse(created.body['updatedAt'] as string),
    );
    const secondSealed = await storedCiphertext(id);
    expect(secondSealed).not.toBe(firstSealed);
    expect(box.open(secondSealed ?? '')).toBe(secondSecret);

    // Partial update: only the floor; the floor is checked against the stored ceiling.
    const refused = await call('PATCH', `/v1/credentials/${id}`, { rateFloorPerSec: 301 });
    expectValidationFailure(refused, 'rateFloorPerSec');
    const lowered = await call('PATCH', `/v1/credentials/${id}`, { rateFloorPerSec: 300 });
    expect(lowered.body).toMatchObject({
      rateFloorPerSec: 300,
      rateCeilingPerSec: 300,
      name: 'Twilio EU (main)',
    });
    // Secret untouched by an update that does not mention it.
    expect(await storedCiphertext(id)).toBe(secondSealed);

    for (const [body, field] of [
      [{ provider: 'ses' }, 'provider'],
      [{ channel: 'email' }, 'channel'],
      [{ tenantId: 'other' }, 'tenantId'],
      [{ name: null }, 'name'],
      [{ rateCeilingPerSec: null }, 'rateCeilingPerSec'],
      [{ secret: '' }, 'secret'],
    ] as const) {
      expectValidationFailure(await call('PATCH', `/v1/credentials/${id}`, body), field);
    }

    // A twilio credential cannot do without its secret.
    expectValidationFailure(await call('PATCH', `/v1/credentials/${id}`, { secret: null }), 'secret');
    const cleared = await call('PATCH', `/v1/credentials/${id}`, { tenantRateCapPerSec: null });
    expect(cleared.body).toMatchObject({ hasSecret: true, tenantRateCapPerSec: null });
    expect(await storedCiphertext(id)).toBe(secondSealed);
  });

  it('never writes a plaintext secret to its log', () => {
    const log = readFileSync(service.logFile, 'utf8');
    expect(log).toContain('/v1/credentials');
    expect(sentSecrets.length).toBeGreaterThan(5);
    for (const secret of sentSecrets) expect(log).not.toContain(secret);
  });
});
