import { AuthErrorCode, Scope } from '@ums/contracts';
import { DispatcherFixture } from '../deliveries/test/dispatcher-fixture';

jest.setTimeout(180_000);

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly fields?: unknown[] };
}

interface SubscriberBody {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
}

/**
 * The subscriber API is tenant-scoped (real dispatcher, keys made by a campaign-scheduler on the same
 * database): a tenant's key sees and changes its own subscribers only, another tenant's answer 404
 * exactly like missing ones, and such calls change nothing.
 */
describe('webhook-dispatcher API: keys, scopes and tenants (real processes)', () => {
  let fixture: DispatcherFixture;
  let keyA: string;
  let keyB: string;
  let readOnlyA: string;
  let subscriberA: string;
  let deliveryA: string;
  let subscriberB: string;

  beforeAll(async () => {
    fixture = await DispatcherFixture.start(
      'webhook_access',
      { LOG_LEVEL: 'error', WEBHOOK_SUBSCRIBER_REFRESH_MS: '200' },
      { scheduler: true },
    );
    [keyA, keyB, readOnlyA] = await Promise.all([
      fixture.tenantKey('tenant-a'),
      fixture.tenantKey('tenant-b'),
      fixture.tenantKey('tenant-a', [Scope.SubscribersRead]),
    ]);
    // Loopback subscribers are internal ones: the operator registers them, for each tenant.
    subscriberA = (await fixture.subscribe('tenant-a')).id;
    subscriberB = (await fixture.subscribe('tenant-b')).id;
    // A settled delivery of A, so the replay routes have a real target.
    await fixture.ds.query(
      `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state, attempts, delivered_at)
       VALUES (?, 'access-0', 'message.status', '{"type":"message.status"}', 'DELIVERED', 1, UTC_TIMESTAMP(3))`,
      [subscriberA],
    );
    const rows: { id: string | number }[] = await fixture.ds.query(
      'SELECT id FROM deliveries WHERE subscriber_id = ?',
      [subscriberA],
    );
    deliveryA = String(rows[0]?.id);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  /** Every by-id route of the API, on subscriber `id` (and delivery `deliveryId`). */
  const byIdRoutes = (id: string, deliveryId: string): [string, string, unknown?][] => [
    ['GET', `/v1/subscribers/${id}`],
    ['PATCH', `/v1/subscribers/${id}`, { eventTypes: ['message.status', 'message.inbound'] }],
    ['POST', `/v1/subscribers/${id}/rotate-secret`],
    ['POST', `/v1/subscribers/${id}/resurrect`],
    ['GET', `/v1/subscribers/${id}/deliveries`],
    ['POST', `/v1/subscribers/${id}/deliveries/${deliveryId}/replay`],
    ['POST', `/v1/subscribers/${id}/replay`, { since: '2020-01-01T00:00:00Z' }],
    ['DELETE', `/v1/subscribers/${id}`],
  ];

  const snapshot = async (): Promise<unknown[]> => [
    await fixture.ds.query('SELECT * FROM subscribers ORDER BY id'),
    await fixture.ds.query('SELECT * FROM deliveries ORDER BY id'),
  ];

  it("answers tenant B's key 404 on every route of tenant A's subscriber, exactly as for a missing one, and changes nothing", async () => {
    const before = await snapshot();
    const missing = 'sub_01JDMISSING0000000000000000';
    let crossTenant = 0;
    for (const [method, path, body] of byIdRoutes(subscriberA, deliveryA)) {
      const foreign = await fixture.api<ErrorBody>(method, path, body, { key: keyB });
      const absent = await fixture.api<ErrorBody>(method, path.replace(subscriberA, missing), body, {
        key: keyB,
      });
      if (foreign.status !== 404) crossTenant++;
      expect([method, path, foreign.status]).toEqual([method, path, 404]);
      expect(foreign.body).toEqual({
        error: { ...absent.body.error, message: absent.body.error.message.replace(missing, subscriberA) },
      });
      expect(foreign.body.error.code).toBe('SUBSCRIBER_NOT_FOUND');
      // An operator acting for tenant B is held to it as well.
      const operatorForB = await fixture.api<ErrorBody>(method, path, body, { tenant: 'tenant-b' });
      expect([method, path, operatorForB.status]).toEqual([method, path, 404]);
    }
    expect(crossTenant).toBe(0);
    expect(await snapshot()).toEqual(before);
    const serverA = fixture.servers[0];
    expect(serverA?.received).toHaveLength(0);
  });

  it("lists only the caller's tenant (the operator: every tenant, or the one it names)", async () => {
    const ids = async (caller: { key?: string; tenant?: string }): Promise<string[]> =>
      (await fixture.api<{ items: SubscriberBody[] }>('GET', '/v1/subscribers', undefined, caller)).body.items
        .map((s) => s.id)
        .sort();
    expect(await ids({ key: keyA })).toEqual([subscriberA]);
    expect(await ids({ key: keyB })).toEqual([subscriberB]);
    expect(await ids({ key: readOnlyA })).toEqual([subscriberA]);
    expect(await ids({})).toEqual([subscriberA, subscriberB].sort());
    expect(await ids({ tenant: 'tenant-b' })).toEqual([subscriberB]);
    expect(await ids({ tenant: 'tenant-c' })).toEqual([]);
  });

  it('takes the tenant from the key, never from the body or query, and needs a tenant for the operator to create', async () => {
    const created = await fixture.api<SubscriberBody>(
      'POST',
      '/v1/subscribers',
      { url: 'https://93.184.215.14/a', eventTypes: ['message.status'] },
      { key: keyA },
    );
    expect(created.status).toBe(201);
    expect(created.body.tenantId).toBe('tenant-a');
    // Internal subscribers (private addresses) are the operator's to create and to repoint.
    const internal = await fixture.api<ErrorBody>(
      'POST',
      '/v1/subscribers',
      { url: 'http://127.0.0.1:9/a', eventTypes: ['message.status'], internal: true },
      { key: keyA },
    );
    expect(internal.status).toBe(403);
    expect(internal.body.error.code).toBe('SUBSCRIBER_INTERNAL_OPERATOR_ONLY');
    const repointed = await fixture.api<ErrorBody>(
      'PATCH',
      `/v1/subscribers/${subscriberA}`,
      { url: 'http://10.0.0.1:9/elsewhere' },
      { key: keyA },
    );
    expect(repointed.status).toBe(403);
    expect(repointed.body.error.code).toBe('SUBSCRIBER_INTERNAL_OPERATOR_ONLY');
    const madeInternal = await fixture.api<ErrorBody>(
      'PATCH',
      `/v1/subscribers/${created.body.id}`,
      { url: 'http://127.0.0.1:9/a', internal: true },
      { key: keyA },
    );
    expect(madeInternal.status).toBe(403);
    const named = await fixture.api<ErrorBody>(
      'POST',
      '/v1/subscribers',
      { tenantId: 'tenant-b', url: 'http://127.0.0.1:9/b', eventTypes: ['message.status'], internal: true },
      { key: keyA },
    );
    expect(named.status).toBe(400);
    expect(JSON.stringify(named.body.error)).toContain('tenantId');
    const queried = await fixture.api<ErrorBody>('GET', '/v1/subscribers?tenantId=tenant-b', undefined, {
      key: keyA,
    });
    expect(queried.status).toBe(400);
    const noTenant = await fixture.api<ErrorBody>('POST', '/v1/subscribers', {
      url: 'http://127.0.0.1:9/c',
      eventTypes: ['message.status'],
      internal: true,
    });
    expect(noTenant.status).toBe(400);
    expect(noTenant.body.error.code).toBe('TENANT_REQUIRED');
    // A tenant's key may not act for another tenant with the operator's header.
    const header = await fixture.api<ErrorBody>('GET', `/v1/subscribers/${subscriberB}`, undefined, {
      key: keyA,
      tenant: 'tenant-b',
    });
    expect(header.status).toBe(403);
    expect(header.body.error.code).toBe(AuthErrorCode.TenantHeaderForbidden);
    expect(
      (await fixture.api('DELETE', `/v1/subscribers/${created.body.id}`, undefined, { key: keyA })).status,
    ).toBe(204);
  });

  it('needs a key (401) and the scope of the route (403): subscribers:read to read, subscribers:write to change', async () => {
    const before = await snapshot();
    for (const [method, path, body] of byIdRoutes(subscriberA, deliveryA)) {
      const response = await fetch(`${fixture.dispatcher.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect([method, path, response.status]).toEqual([method, path, 401]);
      const readOnly = await fixture.api<ErrorBody>(method, path, body, { key: readOnlyA });
      const expected = method === 'GET' ? 200 : 403;
      expect([method, path, readOnly.status]).toEqual([method, path, expected]);
      if (expected === 403) expect(readOnly.body.error.code).toBe(AuthErrorCode.ScopeMissing);
    }
    const create = await fixture.api<ErrorBody>(
      'POST',
      '/v1/subscribers',
      { url: 'http://127.0.0.1:9/r', eventTypes: ['message.status'], internal: true },
      { key: readOnlyA },
    );
    expect(create.status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("lets tenant A's own key do all of it", async () => {
    const [get, patch, rotate, resurrect, list, replayOne, replay, remove] = byIdRoutes(
      subscriberA,
      deliveryA,
    );
    const call = async (route: [string, string, unknown?] | undefined): Promise<number> =>
      route === undefined ? 0 : (await fixture.api(route[0], route[1], route[2], { key: keyA })).status;
    expect(await call(get)).toBe(200);
    expect(await call(patch)).toBe(200);
    expect(await call(rotate)).toBe(200);
    expect(await call(resurrect)).toBe(409); // ALIVE: nothing to resurrect
    expect(await call(list)).toBe(200);
    expect(await call(replayOne)).toBe(202);
    expect(await call(replay)).toBe(202);
    expect(await call(remove)).toBe(204);
    expect(await call(get)).toBe(404);
  });
});
