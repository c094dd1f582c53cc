import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { AllTopics, AuthErrorCode, Scope } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTestDatabase,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/** A loopback identity provider: serves its public keys as a JWKS and signs tokens with the private one. */
async function startIdentityProvider(): Promise<{ server: Server; url: string; keys: KeyPair }> {
  const keys = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, keys };
}

interface TokenOptions {
  readonly audience?: string;
  readonly expiresIn?: string;
  readonly claims?: Record<string, unknown>;
  readonly key?: KeyPair['privateKey'];
}

/** Keys, JWTs and the audit trail of the campaign-scheduler, against the real service process. */
describe('API access (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let idp: Awaited<ReturnType<typeof startIdentityProvider>>;
  let strangerKeys: KeyPair;

  beforeAll(async () => {
    database = await createTestDatabase('ums_access');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    idp = await startIdentityProvider();
    strangerKeys = await generateKeyPair('RS256');
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(database.settings.database, namespace),
        LOG_LEVEL: 'trace',
        AUTH_KEY_CACHE_MS: '2000',
        AUTH_JWKS_URL: idp.url,
        AUTH_JWT_AUDIENCE: 'ums-api',
        AUTH_JWT_ISSUER: 'https://idp.test',
        AUTH_JWT_TENANT_CLAIM: 'https://ums/tenant',
      },
    });
  });

  afterAll(async () => {
    await service?.process.stop();
    await new Promise((resolve) => idp?.server.close(resolve));
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  const operator = (method: string, path: string, tenant: string | null, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...bearer(TEST_OPERATOR_KEY),
        ...(tenant === null ? {} : { 'x-ums-tenant': tenant }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function newKey(
    tenant: string,
    body: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const response = await operator('POST', '/v1/api-keys', tenant, { name: `key of ${tenant}`, ...body });
    expect(response.status).toBe(201);
    return (await response.json()) as Record<string, unknown>;
  }

  async function statusWith(authorization: string | undefined, path = '/v1/campaigns') {
    const response = await fetch(`${service.url}${path}`, {
      headers: authorization === undefined ? {} : { authorization },
    });
    const body = (await response.json()) as { error?: { code: string; message: string } };
    return { status: response.status, code: body.error?.code, message: body.error?.message ?? '' };
  }

  function token(options: TokenOptions = {}): Promise<string> {
    return new SignJWT({
      scope: 'campaigns:read credentials:read',
      'https://ums/tenant': 'tenant-j',
      ...options.claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('svc-billing')
      .setIssuer('https://idp.test')
      .setAudience(options.audience ?? 'ums-api')
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.key ?? idp.keys.privateKey);
  }

  it('creates a key shown once, stores only its hash and never lists its token', async () => {
    const created = await newKey('tenant-a', { scopes: [Scope.CampaignsRead] });
    const key = created['key'] as string;
    expect(key).toMatch(/^umsk_[0-9A-HJKMNP-TV-Z]{26}_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      tenantId: 'tenant-a',
      scopes: [Scope.CampaignsRead],
      createdBy: 'operator',
    });
    expect(key.startsWith(created['prefix'] as string)).toBe(true);

    const [row] = (await ds.query('SELECT * FROM api_keys WHERE id = ?', [created['id']])) as Record<
      string,
      unknown
    >[];
    expect(JSON.stringify(row)).not.toContain(key.slice(32));
    expect(row?.['secret_hash']).toMatch(/^[0-9a-f]{64}$/);

    const listed = await jsonCall(service.url, 'GET', '/v1/api-keys', undefined, key);
    expect(listed.status).toBe(403); // campaigns:read only
    const byOperator = await (await operator('GET', '/v1/api-keys', 'tenant-a')).text();
    expect(byOperator).toContain(created['id'] as string);
    expect(byOperator).not.toContain(key);
    expect((await statusWith(`Bearer ${key}`)).status).toBe(200);
  });

  it('refuses every bad credential form with 401 and its reason code', async () => {
    const revoked = await newKey('tenant-a');
    await operator('DELETE', `/v1/api-keys/${String(revoked['id'])}`, 'tenant-a');
    const expiring = await newKey('tenant-a', { expiresAt: new Date(Date.now() + 1500).toISOString() });
    const real = (await newKey('tenant-a'))['key'] as string;
    const unknown = `${real.slice(0, -4)}AAAA`;

    expect(await statusWith(undefined)).toMatchObject({ status: 401, code: AuthErrorCode.Missing });
    expect(await statusWith('Basic dXNlcjpwYXNz')).toMatchObject({
      status: 401,
      code: AuthErrorCode.Malformed,
    });
    expect(await statusWith('Bearer not-a-key')).toMatchObject({
      status: 401,
      code: AuthErrorCode.Malformed,
    });
    expect(await statusWith(`Bearer ${unknown}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.UnknownKey,
    });
    expect(await statusWith(`Bearer umso_${'x'.repeat(43)}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.UnknownKey,
    });
    expect(await statusWith(`Bearer ${String(revoked['key'])}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.KeyRevoked,
    });
    expect((await statusWith(`Bearer ${String(expiring['key'])}`)).status).toBe(200);
    await waitUntil(
      'the key expired',
      async () => (await statusWith(`Bearer ${String(expiring['key'])}`)).status === 401,
    );
    expect(await statusWith(`Bearer ${String(expiring['key'])}`)).toMatchObject({
      code: AuthErrorCode.KeyExpired,
    });

    const answer = await fetch(`${service.url}/v1/campaigns`);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    const log = readFileSync(service.logFile, 'utf8');
    for (const secret of [real, unknown, String(revoked['key']), TEST_OPERATOR_KEY])
      expect(log).not.toContain(secret);
  });

  it('stops a revoked key on the replica that did not revoke it within 5 s', async () => {
    const key = (await newKey('tenant-a'))['key'] as string;
    const id = `key_${key.split('_')[1] ?? ''}`;
    expect((await statusWith(`Bearer ${key}`)).status).toBe(200); // cached as valid
    // Revoked behind this replica's back, as another replica would.
    await ds.query('UPDATE api_keys SET revoked_at = UTC_TIMESTAMP(3) WHERE id = ?', [id]);
    const started = Date.now();
    await waitUntil(
      'the revocation is seen',
      async () => (await statusWith(`Bearer ${key}`)).status === 401,
      {
        timeoutMs: 10_000,
        intervalMs: 100,
      },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers 403 with the missing scope, and a key never grants more than its creator holds', async () => {
    const reader = (await newKey('tenant-a', { scopes: [Scope.ApiKeysWrite, Scope.CampaignsRead] }))[
      'key'
    ] as string;
    const refused = await jsonCall(service.url, 'GET', '/v1/credentials', undefined, reader);
    expect(refused.status).toBe(403);
    expect(refused.body['error']).toMatchObject({
      code: AuthErrorCode.ScopeMissing,
      details: { scope: 'credentials:read' },
    });
    const wider = await jsonCall(
      service.url,
      'POST',
      '/v1/api-keys',
      { name: 'x', scopes: [Scope.AuditRead] },
      reader,
    );
    expect(wider.status).toBe(403);
    expect(wider.body['error']).toMatchObject({ code: 'API_KEY_SCOPE_BEYOND_CALLER' });
    const narrower = await jsonCall(
      service.url,
      'POST',
      '/v1/api-keys',
      { name: 'y', scopes: [Scope.CampaignsRead] },
      reader,
    );
    expect(narrower.status).toBe(201);
    expect(narrower.body).toMatchObject({
      tenantId: 'tenant-a',
      createdBy: expect.stringMatching(/^api-key:key_/),
    });
  });

  it("keeps keys to their tenant: another tenant's key id answers 404 like a missing one", async () => {
    const a = await newKey('tenant-a');
    const bKey = (await newKey('tenant-b'))['key'] as string;
    const foreign = await jsonCall(service.url, 'GET', `/v1/api-keys/${String(a['id'])}`, undefined, bKey);
    const missing = await jsonCall(
      service.url,
      'GET',
      '/v1/api-keys/key_00000000000000000000000000',
      undefined,
      bKey,
    );
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((foreign.body['error'] as { code: string }).code).toBe(
      (missing.body['error'] as { code: string }).code,
    );
    const revoke = await jsonCall(service.url, 'DELETE', `/v1/api-keys/${String(a['id'])}`, undefined, bKey);
    expect(revoke.status).toBe(404);
    const [row] = (await ds.query('SELECT revoked_at FROM api_keys WHERE id = ?', [a['id']])) as {
      revoked_at: unknown;
    }[];
    expect(row?.revoked_at).toBeNull();
    const listed = await jsonCall(service.url, 'GET', '/v1/api-keys?limit=500', undefined, bKey);
    const tenants = new Set((listed.body['items'] as { tenantId: string }[]).map((k) => k.tenantId));
    expect([...tenants]).toEqual(['tenant-b']);
    const header = await fetch(`${service.url}/v1/api-keys`, {
      headers: { ...bearer(bKey), 'x-ums-tenant': 'tenant-a' },
    });
    expect(header.status).toBe(403);
    const operatorWithout = await operator('POST', '/v1/api-keys', null, { name: 'nobody' });
    expect(operatorWithout.status).toBe(400);
    expect(((await operatorWithout.json()) as { error: { code: string } }).error.code).toBe(
      'TENANT_REQUIRED',
    );
  });

  it('accepts JWTs from the identity provider and refuses bad signatures, audiences, expiry and tenants', async () => {
    const good = await statusWith(`Bearer ${await token()}`, '/v1/campaigns');
    expect(good.status).toBe(200);
    const noScope = await statusWith(`Bearer ${await token()}`, '/v1/api-keys');
    expect(noScope).toMatchObject({ status: 403, code: AuthErrorCode.ScopeMissing });
    expect(await statusWith(`Bearer ${await token({ key: strangerKeys.privateKey })}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.JwtInvalid,
    });
    expect(await statusWith(`Bearer ${await token({ audience: 'another-api' })}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.JwtAudience,
    });
    expect(await statusWith(`Bearer ${await token({ expiresIn: '-1m' })}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.JwtExpired,
    });
    expect(
      await statusWith(`Bearer ${await token({ claims: { 'https://ums/tenant': undefined } })}`),
    ).toMatchObject({
      status: 401,
      code: AuthErrorCode.JwtTenantMissing,
    });
    const tampered = (await token()).replace(/\.([^.]+)\./, (_m, payload: string) => {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      return `.${Buffer.from(JSON.stringify({ ...claims, 'https://ums/tenant': 'tenant-a' })).toString('base64url')}.`;
    });
    expect(await statusWith(`Bearer ${tampered}`)).toMatchObject({
      status: 401,
      code: AuthErrorCode.JwtInvalid,
    });
  });

  it('records state-changing calls in the audit trail, readable per tenant', async () => {
    const key = (await newKey('tenant-audit'))['key'] as string;
    const created = await jsonCall(service.url, 'POST', '/v1/api-keys', { name: 'audited' }, key);
    await jsonCall(service.url, 'DELETE', `/v1/api-keys/${String(created.body['id'])}`, undefined, key);
    const trail = await jsonCall(service.url, 'GET', '/v1/audit-events', undefined, key);
    expect(trail.status).toBe(200);
    const items = trail.body['items'] as Record<string, unknown>[];
    expect(items.map((e) => [e['action'], e['status'], e['result']])).toEqual([
      ['DELETE /v1/api-keys/:id', 200, 'ok'],
      ['POST /v1/api-keys', 201, 'ok'],
      ['POST /v1/api-keys', 201, 'ok'],
    ]);
    expect(items[0]).toMatchObject({
      tenantId: 'tenant-audit',
      principalKind: 'api-key',
      target: `id=${String(created.body['id'])}`,
    });
    expect(items[2]).toMatchObject({ principalKind: 'operator', principalId: 'operator' });
    const others = await jsonCall(
      service.url,
      'GET',
      '/v1/audit-events?limit=500',
      undefined,
      (await newKey('tenant-c'))['key'] as string,
    );
    expect((others.body['items'] as { tenantId: string }[]).every((e) => e.tenantId === 'tenant-c')).toBe(
      true,
    );
    expect(JSON.stringify(items)).not.toContain(String(created.body['key']));
  });
});
