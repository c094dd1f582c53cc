import type { FetchLike } from './api.client';
import { type CliEnvironment, runCli } from './cli.runner';

interface Call {
  readonly method: string;
  readonly url: string;
  readonly body: string | undefined;
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
    expect(await human.run('campaigns', 'list', '--tenant', 'acme')).toBe(0);
    expect(human.stdout()).toMatch(/^ID\s+TENANT\s+NAME/);
    expect(human.stdout()).toContain('cmp_1');
    expect(human.calls[0]?.url).toBe('http://api.test:1234/v1/campaigns?tenantId=acme&limit=50');

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
    [['campaigns', 'create', '--tenant', 'a', '--name', 'n', '--channel', 'sms', '--credential', 'c'], 2],
    [
      [
        'campaigns',
        'create',
        '--tenant',
        'a',
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

  it('creates a campaign with the schedule and template from flags', async () => {
    const c = cli({ 'POST /v1/campaigns': () => json(201, { ...campaign([]), state: 'DRAFT' }) });
    const argv = [
      'campaigns',
      'create',
      '--tenant',
      'acme',
      '--name',
      'N',
      '--channel',
      'sms',
      '--credential',
      'cred_1',
    ];
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
      tenantId: 'acme',
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
    let poll = 0;
    const c = cli({ 'GET /v1/campaigns/cmp_1': () => json(200, states[poll++]) });
    expect(await c.run('campaigns', 'show', 'cmp_1', '--watch', '--interval', '100')).toBe(0);
    expect(poll).toBe(3);
    const progress = c.stderr();
    expect(progress).toContain('run 7 SCHEDULED');
    expect(progress).toContain(
      'run 7 COMPLETED [##############################] 100%  10/10  sent 9 failed 1',
    );
    expect(c.stdout()).toMatch(/7\s+COMPLETED/);
  });
});
