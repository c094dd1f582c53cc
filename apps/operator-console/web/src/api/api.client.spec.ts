import { type KeyValueStorage, SessionStore } from '../session/session.store';
import { ApiClient, type FetchLike } from './api.client';
import { ApiError } from './api-error';
import { schedulerApi } from './console.api';

interface Call {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: string | undefined;
}

function memoryStorage(): KeyValueStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

function setUp(answer: () => Response) {
  const calls: Call[] = [];
  const fetch: FetchLike = (url, init) => {
    calls.push({
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    });
    return Promise.resolve(answer());
  };
  const session = new SessionStore(memoryStorage());
  const client = new ApiClient({ session, fetch, randomId: () => 'key-1' });
  const failures: string[] = [];
  client.setAuthFailureHandlers({
    onUnauthorized: (error) => failures.push(`401 ${error.code}`),
    onForbidden: (error) => failures.push(`403 ${error.code}`),
  });
  return { calls, session, client, failures };
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('ApiClient', () => {
  it('sends the key, and on a create an Idempotency-Key and the operator tenant', async () => {
    const { calls, session, client } = setUp(() => json(201, { id: 'c1' }));
    session.signIn('op-key', { kind: 'operator', id: 'operator', tenantId: null, scopes: [] });
    session.setActingTenant('acme');
    const api = schedulerApi(client);
    await api.createCampaign({
      name: 'n',
      channel: 'sms',
      credentialId: 'cr',
      template: { text: 'hi' },
      schedule: { kind: 'now' },
    });
    await api.messages('c1', '7', { states: ['FAILED', 'UNKNOWN'], recipient: '' });
    const [create, list] = calls;
    expect(create?.url).toBe('/api/scheduler/v1/campaigns');
    expect(create?.method).toBe('POST');
    expect(create?.headers.get('authorization')).toBe('Bearer op-key');
    expect(create?.headers.get('idempotency-key')).toBe('key-1');
    expect(create?.headers.get('x-ums-tenant')).toBe('acme');
    expect(create?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(create?.body ?? '')).toMatchObject({ name: 'n', schedule: { kind: 'now' } });
    expect(list?.url).toBe(
      '/api/scheduler/v1/campaigns/c1/runs/7/messages?state=FAILED&state=UNKNOWN&limit=50',
    );
    expect(list?.headers.get('x-ums-tenant')).toBeNull();
    expect(list?.headers.get('idempotency-key')).toBeNull();
  });

  it('throws the parsed error and hands 401 and 403 to the app', async () => {
    let status = 403;
    const { client, failures } = setUp(() =>
      json(status, {
        error: { code: status === 403 ? 'AUTH_SCOPE_MISSING' : 'AUTH_KEY_UNKNOWN', message: 'no' },
      }),
    );
    const api = schedulerApi(client);
    await expect(api.auditEvents({ action: '', principalId: '', since: '' })).rejects.toMatchObject({
      status: 403,
      code: 'AUTH_SCOPE_MISSING',
      message: 'no',
    });
    status = 401;
    await expect(api.campaign('c1')).rejects.toBeInstanceOf(ApiError);
    expect(failures).toEqual(['403 AUTH_SCOPE_MISSING', '401 AUTH_KEY_UNKNOWN']);
  });

  it('checks a key at sign-in without leaving the page on a 401', async () => {
    const { calls, client, failures } = setUp(() =>
      json(401, { error: { code: 'AUTH_KEY_UNKNOWN', message: 'x' } }),
    );
    await expect(client.whoamiOf('bad')).rejects.toMatchObject({ status: 401 });
    expect(calls[0]?.url).toBe('/api/scheduler/v1/whoami');
    expect(calls[0]?.headers.get('authorization')).toBe('Bearer bad');
    expect(failures).toEqual([]);
  });

  it('turns a failed fetch into a network error', async () => {
    const session = new SessionStore(memoryStorage());
    const client = new ApiClient({
      session,
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      randomId: () => 'k',
    });
    await expect(schedulerApi(client).campaign('c')).rejects.toMatchObject({
      status: 0,
      code: 'NETWORK_ERROR',
    });
  });
});
