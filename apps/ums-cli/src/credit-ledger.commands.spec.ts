import type { FetchLike } from './api.client';
import { type CliEnvironment, runCli } from './cli.runner';

interface Call {
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A CLI wired to an in-memory campaign API answering `routes` (`METHOD /path`). */
function cli(routes: Record<string, unknown>) {
  const calls: Call[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method, url, body, headers: Object.fromEntries(new Headers(init?.headers).entries()) });
    const answer = routes[`${method} ${new URL(url).pathname}`];
    return answer === undefined
      ? json(404, { error: { code: 'ROUTE_NOT_FOUND', message: url } })
      : json(200, answer);
  };
  const environment: CliEnvironment = {
    env: { UMS_API_KEY: 'umso_operator' },
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

const ENTRY = {
  id: '41',
  channel: 'sms',
  kind: 'TOP_UP',
  amount: 5000,
  balanceAfter: 5250,
  messages: 0,
  units: 0,
  runId: null,
  reference: 'inv-7',
  actor: 'operator',
  createdAt: '2026-11-28T09:00:00.000Z',
};

const QUOTAS = {
  dailyLimit: 100,
  monthlyLimit: null,
  day: { period: '2026-11-28', used: 40, limit: 100 },
  month: { period: '2026-11', used: 900, limit: null },
};

describe('ums credits', () => {
  it('shows balances per channel and the quotas with their use', async () => {
    const c = cli({
      'GET /v1/credits': {
        tenantId: 'acme',
        accounts: [
          { channel: 'whatsapp', balance: 0, price: null, metered: false },
          { channel: 'sms', balance: 5250, price: 3, metered: true },
        ],
        quotas: QUOTAS,
      },
    });
    expect(await c.run('credits', 'show')).toBe(0);
    expect(c.stdout()).toMatch(/^CHANNEL\s+BALANCE\s+PRICE\s+METERED\n/);
    expect(c.stdout()).toMatch(/^sms\s+5250\s+3\s+yes$/m);
    expect(c.stdout()).toMatch(/^whatsapp\s+0\s+-\s+no$/m);
    expect(c.stdout()).toMatch(/^today:\s+40 of 100 \(2026-11-28\)$/m);
    expect(c.stdout()).toMatch(/^this month:\s+900 of no cap \(2026-11\)$/m);
  });

  it('pages the ledger with its filters, telling how to get the next page', async () => {
    const c = cli({ 'GET /v1/credits/ledger': { items: [ENTRY], next: '41' } });
    expect(await c.run('credits', 'ledger', '--channel', 'sms', '--limit', '1')).toBe(0);
    const url = new URL(c.calls[0]?.url ?? '');
    expect(Object.fromEntries(url.searchParams)).toEqual({ channel: 'sms', limit: '1' });
    expect(c.stdout()).toMatch(
      /^41\s+2026-11-28 09:00:00Z\s+sms\s+TOP_UP\s+5000\s+5250\s+0\s+-\s+inv-7\s+operator$/m,
    );
    expect(c.stdout()).toMatch(/^more: --before 41$/m);
  });

  it('tops up for the tenant named with --tenant, sending the amount as a number', async () => {
    const c = cli({
      'POST /v1/credits/top-ups': {
        tenantId: 'acme',
        entry: ENTRY,
        balance: 5250,
        replayed: false,
        resumedRuns: 2,
      },
    });
    const argv = [
      'credits',
      'top-up',
      '--tenant',
      'acme',
      '--channel',
      'sms',
      '--amount',
      '5000',
      '--reference',
      'inv-7',
    ];
    expect(await c.run(...argv)).toBe(0);
    expect(c.calls[0]?.body).toEqual({ channel: 'sms', amount: 5000, reference: 'inv-7' });
    expect(c.calls[0]?.headers['x-ums-tenant']).toBe('acme');
    expect(c.stdout()).toMatch(/^credited:\s+5000$/m);
    expect(c.stdout()).toMatch(/^runs resumed:\s+2$/m);

    const replay = cli({
      'POST /v1/credits/top-ups': {
        tenantId: 'acme',
        entry: ENTRY,
        balance: 5250,
        replayed: true,
        resumedRuns: 0,
      },
    });
    expect(await replay.run(...argv)).toBe(0);
    expect(replay.stdout()).toMatch(/^credited:\s+nothing: inv-7 was topped up before$/m);
  });

  it('sets a price, none for an unmetered channel', async () => {
    const answer = {
      tenantId: 'acme',
      channel: 'sms',
      balance: 5250,
      price: null,
      metered: false,
      resumedRuns: 1,
    };
    const c = cli({ 'PUT /v1/credits/prices/sms': answer });
    expect(await c.run('credits', 'price', '--tenant', 'acme', '--channel', 'sms', '--price', 'none')).toBe(
      0,
    );
    expect(c.calls[0]?.body).toEqual({ price: null });
    expect(c.stdout()).toMatch(/^price:\s+none \(not metered\)$/m);
    const priced = cli({ 'PUT /v1/credits/prices/sms': { ...answer, price: 2, metered: true } });
    expect(await priced.run('credits', 'price', '--channel', 'sms', '--price', '2')).toBe(0);
    expect(priced.calls[0]?.body).toEqual({ price: 2 });
  });

  it('sets only the quotas given', async () => {
    const c = cli({ 'PUT /v1/credits/quotas': { tenantId: 'acme', ...QUOTAS } });
    expect(await c.run('credits', 'quota', '--tenant', 'acme', '--daily', '100', '--monthly', 'none')).toBe(
      0,
    );
    expect(c.calls[0]?.body).toEqual({ dailyLimit: 100, monthlyLimit: null });
    const daily = cli({ 'PUT /v1/credits/quotas': { tenantId: 'acme', ...QUOTAS } });
    expect(await daily.run('credits', 'quota', '--daily', '100')).toBe(0);
    expect(daily.calls[0]?.body).toEqual({ dailyLimit: 100 });
  });

  it.each([
    [['credits', 'top-up', '--channel', 'sms', '--amount', '5'], /--reference is required/],
    [
      ['credits', 'top-up', '--channel', 'sms', '--amount=-5', '--reference', 'r'],
      /--amount must be an integer/,
    ],
    [
      ['credits', 'top-up', '--channel', 'sms', '--amount', '1.5', '--reference', 'r'],
      /--amount must be an integer/,
    ],
    [['credits', 'price', '--channel', 'sms', '--price=-1'], /--price must be an integer 0\.\.1000000/],
    [['credits', 'quota'], /give --daily, --monthly or both/],
    [['credits', 'quota', '--daily', '0'], /--daily must be an integer/],
  ])('refuses %j before calling the API (exit 2)', async (argv, message) => {
    const c = cli({});
    expect(await c.run(...argv)).toBe(2);
    expect(c.stderr()).toMatch(message);
    expect(c.calls).toEqual([]);
  });

  it('prints the service refusal of a tenant key (exit 1)', async () => {
    const errors: string[] = [];
    const environment: CliEnvironment = {
      env: { UMS_API_KEY: 'umsk_tenant' },
      stdout: { write: () => undefined },
      stderr: { write: (s: string) => void errors.push(s) },
      fetch: async () =>
        json(403, {
          error: { code: 'AUTH_SCOPE_MISSING', message: 'This route needs the credits:admin scope' },
        }),
      sleep: () => Promise.resolve(),
    };
    const argv = ['credits', 'top-up', '--channel', 'sms', '--amount', '5', '--reference', 'r'];
    expect(await runCli(argv, environment)).toBe(1);
    expect(errors.join('')).toMatch(
      /^error: AUTH_SCOPE_MISSING: This route needs the credits:admin scope \(HTTP 403\)/,
    );
  });
});
