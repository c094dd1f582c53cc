import type { FetchLike } from './api.client';
import { type CliEnvironment, runCli } from './cli.runner';

interface Call {
  readonly method: string;
  readonly url: string;
  readonly body: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

type Handler = (call: Call) => Response | Promise<Response>;

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function run(
  counters: Partial<Record<string, number>>,
  state: string,
  expanded = true,
): Record<string, unknown> {
  return {
    id: '7',
    campaignId: 'cmp_1',
    fireAt: '2026-01-01T00:00:00.000Z',
    state,
    attempts: 1,
    failureReason: null,
    expandedAt: expanded ? '2026-01-01T00:00:01.000Z' : null,
    startedAt: null,
    finishedAt: null,
    counters: {
      total: 0,
      pending: 0,
      sending: 0,
      sent: 0,
      delivered: 0,
      read: 0,
      failed: 0,
      unknown: 0,
      skipped: 0,
      ...counters,
    },
  };
}

function campaign(runs: unknown[]): Record<string, unknown> {
  return {
    id: 'cmp_1',
    tenantId: 'acme',
    name: 'Winter',
    channel: 'sms',
    credentialId: 'cred_1',
    state: 'ACTIVE',
    schedule: { kind: 'now', at: null, cron: null, timeZone: 'UTC' },
    nextFireAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    audienceSize: 10,
    runs,
  };
}

/** A CLI wired to an in-memory "service": no sockets, no files. */
function cli(routes: Record<string, Handler>, env: Record<string, string> = {}) {
  const calls: Call[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const call: Call = {
      method: init?.method ?? 'GET',
      url,
      body: typeof init?.body === 'string' ? init.body : undefined,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
    };
    calls.push(call);
    const path = new URL(url).pathname;
    const handler = routes[`${call.method} ${path}`];
    if (handler === undefined)
      return json(404, { error: { code: 'ROUTE_NOT_FOUND', message: `no ${path}` } });
    return handler(call);
  };
  const environment: CliEnvironment = {
    env,
    stdout: { write: (s: string) => void out.push(s) },
    stderr: { write: (s: string) => void err.push(s) },
    fetch: fetchFn,
    sleep: () => Promise.resolve(),
  };
  return {
    calls,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    run: (...argv: string[]) => runCli(argv, environment),
  };
}

describe('runCli', () => {
  it('lists campaigns as a table, and as JSON only with --json', async () => {
    const routes = { 'GET /v1/campaigns': () => json(200, { items: [campaign([])] }) };
    const human = cli(routes, { UMS_API_URL: 'http://api.test:1234/' });
    expect(await human.run('campaigns', 'list')).toBe(0);
    expect(human.stdout()).toMatch(/^ID\s+TENANT\s+NAME/);
    expect(human.stdout()).toContain('cmp_1');
    expect(human.calls[0]?.url).toBe('http://api.test:1234/v1/campaigns?limit=50');

    const machine = cli(routes);
    expect(await machine.run('campaigns', 'list', '--json')).toBe(0);
    expect(JSON.parse(machine.stdout())).toEqual({ items: [campaign([])] });
    expect(machine.stderr()).toBe('');
    expect(machine.calls[0]?.url).toBe('http://127.0.0.1:3000/v1/campaigns?limit=50');
  });

  it('flags win over the environment', async () => {
    const c = cli(
      { 'GET /v1/subscribers': () => json(200, { items: [], nextAfter: null }) },
      {
        UMS_DISPATCHER_URL: 'http://env.test:1',
      },
    );
    expect(await c.run('subscribers', 'list', '--dispatcher', 'http://flag.test:2')).toBe(0);
    expect(c.calls[0]?.url).toBe('http://flag.test:2/v1/subscribers');
    expect(c.stdout()).toBe('(none)\n');
  });

  it('exits 1 on an API refusal, printing code, message and fields (as JSON with --json)', async () => {
    const refusal = {
      error: {
        code: 'RUN_TRANSITION_REFUSED',
        message: 'a STOPPED run cannot pause',
        fields: [{ field: 'state', reason: 'STOPPED' }],
      },
    };
    const routes = { 'POST /v1/campaigns/cmp_1/runs/7/pause': () => json(409, refusal) };
    const human = cli(routes);
    expect(await human.run('runs', 'pause', 'cmp_1', '7')).toBe(1);
    expect(human.stderr()).toBe(
      'error: RUN_TRANSITION_REFUSED: a STOPPED run cannot pause (HTTP 409)\n  state: STOPPED\n',
    );
    expect(human.stdout()).toBe('');
    const machine = cli(routes);
    expect(await machine.run('runs', 'pause', 'cmp_1', '7', '--json')).toBe(1);
    expect(JSON.parse(machine.stderr())).toEqual({ error: { ...refusal.error, status: 409 } });
  });

  it('exits 1 with HTTP_<status> when the answer is not a UMS error', async () => {
    const c = cli({
      'GET /v1/campaigns/cmp_1': () => new Response('<html>bad gateway</html>', { status: 502 }),
    });
    expect(await c.run('campaigns', 'show', 'cmp_1')).toBe(1);
    expect(c.stderr()).toContain('error: HTTP_502: <html>bad gateway</html>');
  });

  it('exits 3 when the service cannot be reached, without a stack trace', async () => {
    const c = cli({
      'GET /v1/campaigns': () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
        });
      },
    });
    expect(await c.run('campaigns', 'list')).toBe(3);
    expect(c.stderr()).toContain(
      'cannot connect to the campaign API at http://127.0.0.1:3000 (ECONNREFUSED)',
    );
    expect(c.stderr()).not.toContain('    at ');
  });

  it('exits 3 on a timeout', async () => {
    const c = cli({
      'GET /v1/campaigns': () => {
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      },
    });
    expect(await c.run('campaigns', 'list', '--timeout', '50', '--json')).toBe(3);
    expect(JSON.parse(c.stderr())).toEqual({
      error: {
        code: 'TIMEOUT',
        message: 'the campaign API at http://127.0.0.1:3000 did not answer within 50 ms',
      },
    });
  });

  it.each([
    [[], 0],
    [['help'], 0],
    [['help', 'runs', 'pause'], 0],
    [['campaigns', '--help'], 0],
    [['bogus'], 2],
    [['campaigns'], 2],
    [['campaigns', 'list', '--bogus'], 2],
    [['campaigns', 'show'], 2],
    [['campaigns', 'show', 'a', 'b'], 2],
    [['runs', 'pause', 'cmp_1', 'notanumber'], 2],
    [['dlq', 'replay', 'sub_1'], 2],
    [['dlq', 'replay', 'sub_1', '--since', 'yesterday'], 2],
    [['campaigns', 'list', '--limit', '0'], 2],
    [['campaigns', 'list', '--api', 'ftp://x'], 2],
    [['campaigns', 'create', '--name', 'n', '--channel', 'sms', '--credential', 'c'], 2],
    [['keys', 'create', '--scopes', 'audit:read'], 2],
    [['keys', 'create', '--name', 'n', '--scopes', ' , '], 2],
    [['keys', 'create', '--name', 'n', '--scopes', 'audit:read', '--expires-at', 'tomorrow'], 2],
    [['audit', 'list', '--since', '2026-01-01'], 2],
    [['campaigns', 'list', '--api-key', ''], 2],
    [
      [
        'campaigns',
        'create',
        '--name',
        'n',
        '--channel',
        'sms',
        '--credential',
        'c',
        '--text',
        'x',
        '--csv',
        '/nonexistent/x.csv',
      ],
      2,
    ],
  ])('%j exits %i and sends no request when the usage is wrong', async (argv, code) => {
    const c = cli({});
    expect(await c.run(...argv)).toBe(code);
    if (code === 2) {
      expect(c.calls).toEqual([]);
      expect(c.stderr()).toMatch(/^error: /);
    } else {
      expect(c.stdout()).toContain('Usage');
    }
  });

  it('sends run actions to the run route and reports requeued messages', async () => {
    const c = cli({
      'POST /v1/campaigns/cmp_1/runs/7/retry-failed': () =>
        json(200, { run: run({ total: 3, pending: 2 }, 'RUNNING'), requeued: 2 }),
    });
    expect(await c.run('runs', 'retry-failed', 'cmp_1', '7')).toBe(0);
    expect(c.stdout()).toContain('run 7 is RUNNING (2 messages requeued)');
  });

  it('asks for a status refresh of a run and prints the unsettled counts', async () => {
    const c = cli({
      'POST /v1/campaigns/cmp_1/runs/7/status-refresh': () =>
        json(202, {
          runId: '7',
          unsettled: { unknown: 3, sentWithoutCallback: 12 },
          lastRefresh: {
            requestedAt: '2026-11-24T10:00:00.000Z',
            finishedAt: null,
            settled: { sent: 0, delivered: 0, read: 0, failed: 0, notReceived: 0 },
            unresolved: 0,
          },
        }),
    });
    expect(await c.run('runs', 'refresh-status', 'cmp_1', '7')).toBe(0);
    expect(c.stdout()).toContain('refresh requested for run 7: 3 UNKNOWN, 12 SENT without callback');
    expect(c.stdout()).toContain('(in progress)');
  });

  it('creates a campaign with the schedule and template from flags', async () => {
    const c = cli({ 'POST /v1/campaigns': () => json(201, { ...campaign([]), state: 'DRAFT' }) });
    const argv = ['campaigns', 'create', '--name', 'N', '--channel', 'sms', '--credential', 'cred_1'];
    expect(
      await c.run(
        ...argv,
        '--text',
        'Hi {{name}}',
        '--cron',
        '0 9 * * 1-5',
        '--tz',
        'Europe/Berlin',
        '--country',
        'DE',
        '--json',
      ),
    ).toBe(0);
    expect(JSON.parse(c.calls[0]?.body ?? '')).toEqual({
      name: 'N',
      channel: 'sms',
      credentialId: 'cred_1',
      template: { text: 'Hi {{name}}' },
      defaultCountry: 'DE',
      schedule: { kind: 'cron', cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin' },
    });
    expect(JSON.parse(c.stdout())).toMatchObject({ campaign: { id: 'cmp_1' }, import: null });
  });

  it('--watch polls until the run ends and prints the final state', async () => {
    const states = [
      campaign([run({ total: 4, pending: 4 }, 'SCHEDULED', false)]),
      campaign([run({ total: 10, pending: 6, sent: 4 }, 'RUNNING', false)]),
      campaign([run({ total: 10, sent: 9, failed: 1 }, 'COMPLETED')]),
      campaign([run({ total: 10, sent: 10 }, 'COMPLETED')]),
    ];
    // The run's history as each poll finds it: one more event committed with each state change seen.
    const event = (
      id: string,
      name: string,
      previousState: string,
      state: string,
    ): Record<string, unknown> => ({
      id,
      eventId: `run-7-${id}`,
      event: name,
      state,
      previousState,
      reason: null,
      counters: {},
      occurredAt: `2026-01-01T00:00:0${id}.000Z`,
    });
    const history = [
      event('1', 'scheduled', 'PENDING', 'SCHEDULED'),
      event('2', 'started', 'SCHEDULED', 'RUNNING'),
      event('3', 'completed', 'RUNNING', 'COMPLETED'),
    ];
    let poll = 0;
    const c = cli({
      'GET /v1/campaigns/cmp_1': () => json(200, states[poll++]),
      'GET /v1/campaigns/cmp_1/runs/7/events': (call) => {
        const after = Number(new URL(call.url).searchParams.get('after'));
        return json(200, { items: history.slice(0, poll).filter((e) => Number(e['id']) > after) });
      },
    });
    expect(await c.run('campaigns', 'show', 'cmp_1', '--watch', '--interval', '100')).toBe(0);
    expect(poll).toBe(3);
    const progress = c.stderr();
    expect(progress).toContain('run 7 SCHEDULED');
    // Each state change once, in order, as a line of its own.
    expect(progress.split('\n').filter((l) => /^run 7 [a-z]+ /.test(l))).toEqual([
      'run 7 scheduled PENDING -> SCHEDULED  at 2026-01-01T00:00:01.000Z',
      'run 7 started   SCHEDULED -> RUNNING  at 2026-01-01T00:00:02.000Z',
      'run 7 completed RUNNING -> COMPLETED  at 2026-01-01T00:00:03.000Z',
    ]);
    expect(progress).toContain(
      'run 7 COMPLETED [##############################] 100%  10/10  sent 9 failed 1',
    );
    expect(c.stdout()).toMatch(/7\s+COMPLETED/);
  });

  it('sends the key of UMS_API_KEY as a bearer token (--api-key wins) and --tenant as X-Ums-Tenant', async () => {
    const routes = { 'GET /v1/subscribers': () => json(200, { items: [], nextAfter: null }) };
    const fromEnv = cli(routes, { UMS_API_KEY: 'umsk_env', UMS_TENANT: 'acme' });
    expect(await fromEnv.run('subscribers', 'list')).toBe(0);
    expect(fromEnv.calls[0]?.headers).toMatchObject({
      authorization: 'Bearer umsk_env',
      'x-ums-tenant': 'acme',
    });
    expect(fromEnv.calls[0]?.url).toBe('http://127.0.0.1:3004/v1/subscribers');

    const fromFlags = cli(routes, { UMS_API_KEY: 'umsk_env', UMS_TENANT: 'acme' });
    expect(await fromFlags.run('subscribers', 'list', '--api-key', 'umso_flag', '--tenant', 'beta')).toBe(0);
    expect(fromFlags.calls[0]?.headers).toMatchObject({
      authorization: 'Bearer umso_flag',
      'x-ums-tenant': 'beta',
    });

    const none = cli(routes);
    expect(await none.run('subscribers', 'list')).toBe(0);
    expect(none.calls[0]?.headers['authorization']).toBeUndefined();
    expect(none.calls[0]?.headers['x-ums-tenant']).toBeUndefined();
  });

  it('refuses a key that cannot be sent without repeating it, and sends nothing', async () => {
    const c = cli({}, { UMS_API_KEY: 'umsk_secret\nvalue' });
    expect(await c.run('campaigns', 'list')).toBe(2);
    expect(c.calls).toEqual([]);
    expect(c.stderr()).toMatch(/^error: the API key of UMS_API_KEY must be visible ASCII/);
    expect(c.stderr()).not.toContain('secret');
  });

  it('prints 401 and 403 refusals with their reason code and what to do, exit 1', async () => {
    const missing = cli({
      'GET /v1/campaigns': () =>
        json(401, { error: { code: 'AUTH_MISSING', message: 'No credential: send Authorization' } }),
    });
    expect(await missing.run('campaigns', 'list')).toBe(1);
    expect(missing.stderr()).toBe(
      'error: AUTH_MISSING: No credential: send Authorization (HTTP 401)\n' +
        'give an API key with UMS_API_KEY (or --api-key)\n',
    );
    const scope = cli(
      {
        'GET /v1/credentials': () =>
          json(403, {
            error: {
              code: 'AUTH_SCOPE_MISSING',
              message: 'This route needs the credentials:read scope',
              details: { scope: 'credentials:read' },
            },
          }),
      },
      { UMS_API_KEY: 'umsk_reader' },
    );
    expect(await scope.run('credentials', 'list')).toBe(1);
    expect(scope.stderr()).toBe(
      'error: AUTH_SCOPE_MISSING: This route needs the credentials:read scope (HTTP 403)\n' +
        '  details: {"scope":"credentials:read"}\n',
    );
    expect(scope.stderr()).not.toContain('umsk_reader');
  });

  it('creates a key with its scopes and expiry, printing it once with a warning (never with --json notes)', async () => {
    const view = {
      id: 'key_01',
      tenantId: 'acme',
      name: 'billing',
      scopes: ['campaigns:read', 'campaigns:write'],
      prefix: 'umsk_01_',
      createdBy: 'operator',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2027-01-01T00:00:00.000Z',
      revokedAt: null,
    };
    const routes = { 'POST /v1/api-keys': () => json(201, { ...view, key: 'umsk_01_new' }) };
    const argv = ['keys', 'create', '--name', 'billing', '--scopes', 'campaigns:read, campaigns:write'];
    const human = cli(routes, { UMS_API_KEY: 'umso_operator', UMS_TENANT: 'acme' });
    expect(await human.run(...argv, '--expires-at', '2027-01-01T00:00:00Z')).toBe(0);
    expect(JSON.parse(human.calls[0]?.body ?? '')).toEqual({
      name: 'billing',
      scopes: ['campaigns:read', 'campaigns:write'],
      expiresAt: '2027-01-01T00:00:00Z',
    });
    expect(human.calls[0]?.headers['x-ums-tenant']).toBe('acme');
    expect(human.stdout()).toMatch(/^id:\s+key_01\n/);
    expect(human.stdout()).toMatch(/\nkey:\s+umsk_01_new\n$/);
    expect(human.stderr()).toMatch(/^warning: the key is shown this once and cannot be shown again/);
    expect(`${human.stdout()}${human.stderr()}`).not.toContain('umso_operator');

    const machine = cli(routes, { UMS_API_KEY: 'umso_operator' });
    // Without --scopes the service gives the key all of the caller's.
    expect(await machine.run('keys', 'create', '--name', 'billing', '--json')).toBe(0);
    expect(JSON.parse(machine.calls[0]?.body ?? '')).toEqual({ name: 'billing' });
    expect(JSON.parse(machine.stdout())).toMatchObject({ id: 'key_01', key: 'umsk_01_new' });
    expect(machine.stderr()).toBe('');
  });

  it('lists, revokes keys and reads the audit trail with its filters', async () => {
    const key = {
      id: 'key_01',
      tenantId: 'acme',
      name: 'billing',
      scopes: ['campaigns:read'],
      prefix: 'umsk_01_',
      createdBy: 'operator',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: null,
      revokedAt: null,
    };
    const c = cli({
      'GET /v1/api-keys': () => json(200, { items: [key], next: 'key_01' }),
      'DELETE /v1/api-keys/key_01': () => json(200, { ...key, revokedAt: '2026-01-02T00:00:00.000Z' }),
      'GET /v1/audit-events': () =>
        json(200, {
          items: [
            {
              id: '9',
              occurredAt: '2026-01-02T00:00:00.000Z',
              principalKind: 'api-key',
              principalId: 'key_01',
              tenantId: 'acme',
              service: 'campaign-scheduler',
              action: 'POST /v1/campaigns',
              target: 'id=cmp_1',
              status: 201,
              result: 'ok',
              requestId: 'r1',
            },
          ],
          next: null,
        }),
    });
    expect(await c.run('keys', 'list', '--limit', '1')).toBe(0);
    expect(c.stdout()).toMatch(/^ID\s+TENANT\s+NAME\s+SCOPES/);
    expect(c.stdout()).toMatch(/key_01\s+acme\s+billing\s+campaigns:read\s+2026-01-01 00:00:00Z\s+-\s+-\n/);
    expect(c.stdout()).toContain('more: --after key_01\n');
    expect(await c.run('keys', 'revoke', 'key_01')).toBe(0);
    expect(c.stdout()).toContain('key key_01 (billing) revoked at 2026-01-02 00:00:00Z\n');
    expect(
      await c.run('audit', 'list', '--action', 'POST /v1/campaigns', '--since', '2026-01-01T00:00:00Z'),
    ).toBe(0);
    expect(c.calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      'GET http://127.0.0.1:3000/v1/api-keys?limit=1',
      'DELETE http://127.0.0.1:3000/v1/api-keys/key_01',
      'GET http://127.0.0.1:3000/v1/audit-events?action=POST+%2Fv1%2Fcampaigns&since=2026-01-01T00%3A00%3A00Z',
    ]);
    expect(c.stdout()).toMatch(
      /api-key:key_01\s+acme\s+campaign-scheduler\s+POST \/v1\/campaigns\s+id=cmp_1\s+201\s+ok\n$/,
    );
  });
});
