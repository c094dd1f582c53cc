import { DispatcherApiClient, UmsApiError } from '@ums/client';
import { AuthErrorCode, Scope } from '@ums/contracts';
import { type ApiCaller, DispatcherFixture } from '../deliveries/test/dispatcher-fixture';

jest.setTimeout(180_000);

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly fields?: unknown[] };
}

/** A call of the API through its typed client. */
type Call = (client: DispatcherApiClient) => Promise<unknown>;

/** What a call came to: `ok` (a 2xx, its body as the document gives it), or the refusal's status and error. */
async function outcome(
  call: Promise<unknown>,
): Promise<'ok' | { status: number; code: string; message: string }> {
  try {
    await call;
    return 'ok';
  } catch (error: unknown) {
    if (!(error instanceof UmsApiError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
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

  /** Every by-id operation of the API, on subscriber `id` (and delivery `deliveryId`), by operationId. */
  const byIdCalls = (id: string, deliveryId: string): [string, Call][] => [
    ['Subscribers_get', (c) => c.subscribers.get(id)],
    [
      'Subscribers_update',
      (c) => c.subscribers.update(id, { eventTypes: ['message.status', 'message.inbound'] }),
    ],
    ['Subscribers_rotateSecret', (c) => c.subscribers.rotateSecret(id)],
    ['Deliveries_resurrect', (c) => c.deliveries.resurrect(id)],
    ['Deliveries_list', (c) => c.deliveries.list(id)],
    ['Deliveries_replayOne', (c) => c.deliveries.replayOne(id, deliveryId)],
    ['Deliveries_replaySince', (c) => c.deliveries.replaySince(id, { since: '2020-01-01T00:00:00Z' })],
    ['Subscribers_delete', (c) => c.subscribers.delete(id)],
  ];
  const as = (caller: ApiCaller): DispatcherApiClient => fixture.client(caller);

  const snapshot = async (): Promise<unknown[]> => [
    await fixture.ds.query('SELECT * FROM subscribers ORDER BY id'),
    await fixture.ds.query('SELECT * FROM deliveries ORDER BY id'),
  ];

  it("answers tenant B's key 404 on every route of tenant A's subscriber, exactly as for a missing one, and changes nothing", async () => {
    const before = await snapshot();
    const missing = 'sub_01JDMISSING0000000000000000';
    const absentCalls = new Map(byIdCalls(missing, deliveryA));
    let crossTenant = 0;
    for (const [operation, call] of byIdCalls(subscriberA, deliveryA)) {
      const foreign = await outcome(call(as({ key: keyB })));
      const absent = await outcome((absentCalls.get(operation) as Call)(as({ key: keyB })));
      if (foreign === 'ok' || foreign.status !== 404) crossTenant++;
      expect([operation, foreign]).toEqual([
        operation,
        absent === 'ok'
          ? 'absent answered'
          : { ...absent, message: absent.message.replace(missing, subscriberA) },
      ]);
      expect([operation, foreign]).toEqual([
        operation,
        expect.objectContaining({ code: 'SUBSCRIBER_NOT_FOUND' }),
      ]);
      // An operator acting for tenant B is held to it as well.
      const operatorForB = await outcome(call(as({ tenant: 'tenant-b' })));
      expect([operation, operatorForB]).toEqual([operation, expect.objectContaining({ status: 404 })]);
    }
    expect(crossTenant).toBe(0);
    expect(await snapshot()).toEqual(before);
    const serverA = fixture.servers[0];
    expect(serverA?.received).toHaveLength(0);
  });

  it("lists only the caller's tenant (the operator: every tenant, or the one it names)", async () => {
    const ids = async (caller: ApiCaller): Promise<string[]> =>
      (await as(caller).subscribers.list()).items.map((s) => s.id).sort();
    expect(await ids({ key: keyA })).toEqual([subscriberA]);
    expect(await ids({ key: keyB })).toEqual([subscriberB]);
    expect(await ids({ key: readOnlyA })).toEqual([subscriberA]);
    expect(await ids({})).toEqual([subscriberA, subscriberB].sort());
    expect(await ids({ tenant: 'tenant-b' })).toEqual([subscriberB]);
    expect(await ids({ tenant: 'tenant-c' })).toEqual([]);
  });

  it('takes the tenant from the key, never from the body or query, and needs a tenant for the operator to create', async () => {
    const tenantA = as({ key: keyA });
    const created = await tenantA.subscribers.create({
      url: 'https://93.184.215.14/a',
      eventTypes: ['message.status'],
    });
    expect(created.tenantId).toBe('tenant-a');
    // Internal subscribers (private addresses) are the operator's to create and to repoint.
    const internal = await outcome(
      tenantA.subscribers.create({
        url: 'http://127.0.0.1:9/a',
        eventTypes: ['message.status'],
        internal: true,
      }),
    );
    expect(internal).toMatchObject({ status: 403, code: 'SUBSCRIBER_INTERNAL_OPERATOR_ONLY' });
    const repointed = await outcome(
      tenantA.subscribers.update(subscriberA, { url: 'http://10.0.0.1:9/elsewhere' }),
    );
    expect(repointed).toMatchObject({ status: 403, code: 'SUBSCRIBER_INTERNAL_OPERATOR_ONLY' });
    const madeInternal = await outcome(
      tenantA.subscribers.update(created.id, { url: 'http://127.0.0.1:9/a', internal: true }),
    );
    expect(madeInternal).toMatchObject({ status: 403 });
    // What the typed client cannot send (a tenant in the body or the query), sent as JSON by hand.
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
    const noTenant = await outcome(
      as({}).subscribers.create({
        url: 'http://127.0.0.1:9/c',
        eventTypes: ['message.status'],
        internal: true,
      }),
    );
    expect(noTenant).toMatchObject({ status: 400, code: 'TENANT_REQUIRED' });
    // A tenant's key may not act for another tenant with the operator's header.
    const header = await outcome(as({ key: keyA, tenant: 'tenant-b' }).subscribers.get(subscriberB));
    expect(header).toMatchObject({ status: 403, code: AuthErrorCode.TenantHeaderForbidden });
    await expect(tenantA.subscribers.delete(created.id)).resolves.toBeUndefined();
  });

  it('needs a key (401) and the scope of the route (403): subscribers:read to read, subscribers:write to change', async () => {
    const before = await snapshot();
    const anonymous = new DispatcherApiClient({ baseUrl: fixture.dispatcher.url });
    const reads = new Set(['Subscribers_get', 'Deliveries_list']);
    for (const [operation, call] of byIdCalls(subscriberA, deliveryA)) {
      expect([operation, await outcome(call(anonymous))]).toEqual([
        operation,
        expect.objectContaining({ status: 401, code: AuthErrorCode.Missing }),
      ]);
      const readOnly = await outcome(call(as({ key: readOnlyA })));
      expect([operation, readOnly]).toEqual([
        operation,
        reads.has(operation)
          ? 'ok'
          : expect.objectContaining({ status: 403, code: AuthErrorCode.ScopeMissing }),
      ]);
    }
    const create = await outcome(
      as({ key: readOnlyA }).subscribers.create({
        url: 'http://127.0.0.1:9/r',
        eventTypes: ['message.status'],
        internal: true,
      }),
    );
    expect(create).toMatchObject({ status: 403, code: AuthErrorCode.ScopeMissing });
    expect(await snapshot()).toEqual(before);
  });

  it("lets tenant A's own key do all of it", async () => {
    const api = as({ key: keyA });
    expect(await api.subscribers.get(subscriberA)).toMatchObject({ id: subscriberA, tenantId: 'tenant-a' });
    const patched = await api.subscribers.update(subscriberA, {
      eventTypes: ['message.status', 'message.inbound'],
    });
    expect(patched.eventTypes).toEqual(['message.status', 'message.inbound']);
    expect((await api.subscribers.rotateSecret(subscriberA)).secret).toMatch(/^whsec_/);
    // ALIVE: nothing to resurrect.
    expect(await outcome(api.deliveries.resurrect(subscriberA))).toMatchObject({ status: 409 });
    expect((await api.deliveries.list(subscriberA)).items.map((d) => d.id)).toContain(deliveryA);
    expect(await api.deliveries.replayOne(subscriberA, deliveryA)).toMatchObject({ id: deliveryA });
    expect(await api.deliveries.replaySince(subscriberA, { since: '2020-01-01T00:00:00Z' })).toEqual({
      replayed: expect.any(Number) as number,
    });
    await expect(api.subscribers.delete(subscriberA)).resolves.toBeUndefined();
    expect(await outcome(api.subscribers.get(subscriberA))).toMatchObject({
      status: 404,
      code: 'SUBSCRIBER_NOT_FOUND',
    });
  });
});
