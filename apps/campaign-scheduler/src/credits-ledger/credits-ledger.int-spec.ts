import { randomBytes } from 'node:crypto';
import {
  AllTopics,
  AuthErrorCode,
  CreditErrorCode,
  type CreditLedgerPage,
  type CreditPriceView,
  type CreditQuotasUpdateView,
  type CreditsView,
  type CreditTopUpView,
  HttpErrorCode,
  Scope,
  TENANT_HEADER,
} from '@ums/contracts';
import { quotaPeriodsAt } from '@ums/domain';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  seedCampaign,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[] };
}

/** The credits API, its run resumption and its gauges, of the real service (built from dist/). */
describe('credits API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let keyA: string;
  let keyB: string;
  let keyWithoutScope: string;

  beforeAll(async () => {
    database = await createTestDatabase('ums_credits_ledger');
    ds = await createDataSource(database.settings).initialize();
    await runPendingMigrations(ds);
    for (const [campaignId, tenantId, channel] of [
      ['cmp-sms-a', 'tenant-a', 'sms'],
      ['cmp-wa-a', 'tenant-a', 'whatsapp'],
      ['cmp-sms-b', 'tenant-b', 'sms'],
      ['cmp-sms-q', 'tenant-q', 'sms'],
    ] as const) {
      await seedCampaign(database.settings, {
        campaignId,
        tenantId,
        credentialId: `cred-${campaignId}`,
        contacts: 0,
        channel,
      });
    }
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(database.settings.database, namespace),
        CREDIT_METRICS_TICK_MS: '1000',
        CREDIT_QUOTA_RESUME_TICK_MS: '1000',
        CREDIT_QUOTA_USAGE_PRUNE_TICK_MS: '1000',
      },
    });
    keyA = await createTenantKey(service.url, 'tenant-a');
    keyB = await createTenantKey(service.url, 'tenant-b');
    keyWithoutScope = await createTenantKey(service.url, 'tenant-a', [Scope.CampaignsRead]);
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    key: string,
    options: { body?: unknown; tenant?: string } = {},
  ): Promise<Answer<T>> {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...bearer(key),
        ...(options.tenant === undefined ? {} : { [TENANT_HEADER]: options.tenant }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as T };
  }

  const operator = <T = Record<string, unknown>>(
    method: string,
    path: string,
    tenant: string,
    body?: unknown,
  ): Promise<Answer<T>> => call<T>(method, path, TEST_OPERATOR_KEY, { tenant, body });

  const topUp = (tenant: string, body: Record<string, unknown>): Promise<Answer<CreditTopUpView>> =>
    operator<CreditTopUpView>('POST', '/v1/credits/top-ups', tenant, body);

  /** Every account's balance equals the sum of its ledger rows, and there is no ledger without an account. */
  async function expectLedgerMatchesBalances(): Promise<void> {
    const rows = (await ds.query(
      `SELECT a.tenant_id, a.channel, a.balance, COALESCE(SUM(l.amount), 0) AS total, COUNT(l.id) AS entries
         FROM credit_accounts a LEFT JOIN credit_ledger l ON l.tenant_id = a.tenant_id AND l.channel = a.channel
        GROUP BY a.tenant_id, a.channel, a.balance`,
    )) as { tenant_id: string; channel: string; balance: string; total: string }[];
    for (const row of rows)
      expect([row.tenant_id, row.channel, row.total]).toEqual([row.tenant_id, row.channel, row.balance]);
    const [orphans] = (await ds.query(
      `SELECT COUNT(*) AS n FROM credit_ledger l
        WHERE NOT EXISTS (SELECT 1 FROM credit_accounts a WHERE a.tenant_id = l.tenant_id AND a.channel = l.channel)`,
    )) as { n: string }[];
    expect(Number(orphans?.n)).toBe(0);
  }

  let runs = 0;
  /** A run of the campaign, PAUSED with the reason given (NULL: paused by a person). */
  async function pausedRun(campaignId: string, reason: string | null): Promise<string> {
    runs += 1;
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, pause_reason, started_at, updated_at)
       VALUES (?, UTC_TIMESTAMP(3) - INTERVAL ? MINUTE, 'PAUSED', ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [campaignId, runs, reason],
    )) as { insertId: number };
    return String(result.insertId);
  }

  async function runOf(runId: string): Promise<{ state: string; pause_reason: string | null }> {
    const [row] = (await ds.query('SELECT state, pause_reason FROM runs WHERE id = ?', [runId])) as {
      state: string;
      pause_reason: string | null;
    }[];
    if (row === undefined) throw new Error(`no run ${runId}`);
    return row;
  }

  it('creates the account and a TOP_UP entry; a repeated reference credits once', async () => {
    const first = await topUp('tenant-a', { channel: 'sms', amount: 1_000, reference: 'inv-1' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      tenantId: 'tenant-a',
      balance: 1_000,
      replayed: false,
      resumedRuns: 0,
      entry: {
        channel: 'sms',
        kind: 'TOP_UP',
        amount: 1_000,
        balanceAfter: 1_000,
        reference: 'inv-1',
        actor: 'operator',
        runId: null,
      },
    });
    await expectLedgerMatchesBalances();

    const again = await topUp('tenant-a', { channel: 'sms', amount: 1_000, reference: 'inv-1' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ balance: 1_000, replayed: true, entry: first.body.entry });
    // The same reference with another amount is refused: the first top-up stands.
    const other = await topUp('tenant-a', { channel: 'sms', amount: 5, reference: 'inv-1' });
    expect(other.status).toBe(409);
    expect((other.body as unknown as ErrorBody).error.code).toBe(CreditErrorCode.TopUpReferenceReused);

    const second = await topUp('tenant-a', { channel: 'sms', amount: 250, reference: 'inv-2' });
    expect(second.body).toMatchObject({ balance: 1_250, replayed: false, entry: { balanceAfter: 1_250 } });
    const [count] = (await ds.query(
      "SELECT COUNT(*) AS n FROM credit_ledger WHERE tenant_id = 'tenant-a' AND kind = 'TOP_UP'",
    )) as { n: string }[];
    expect(Number(count?.n)).toBe(2);
    await expectLedgerMatchesBalances();
  });

  it('answers concurrent top-ups of one reference with one credit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => topUp('tenant-c', { channel: 'email', amount: 70, reference: 'race' })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((a) => !a.body.replayed)).toHaveLength(1);
    const [account] = (await ds.query(
      "SELECT balance FROM credit_accounts WHERE tenant_id = 'tenant-c' AND channel = 'email'",
    )) as { balance: string }[];
    expect(Number(account?.balance)).toBe(70);
    await expectLedgerMatchesBalances();
  });

  it("shows the tenant's balances, prices and quotas, every channel listed", async () => {
    const price = await operator<CreditPriceView>('PUT', '/v1/credits/prices/sms', 'tenant-a', { price: 2 });
    expect(price.status).toBe(200);
    expect(price.body).toMatchObject({
      tenantId: 'tenant-a',
      channel: 'sms',
      balance: 1_250,
      price: 2,
      metered: true,
    });
    // A price makes no ledger entry and leaves the balance as it was.
    await expectLedgerMatchesBalances();
    const quotas = await operator<CreditQuotasUpdateView>('PUT', '/v1/credits/quotas', 'tenant-a', {
      dailyLimit: 500,
    });
    expect(quotas.status).toBe(200);
    const periods = quotaPeriodsAt(new Date());
    await ds.query("INSERT INTO credit_quota_usage (tenant_id, period, used) VALUES ('tenant-a', ?, 42)", [
      periods.day,
    ]);

    const view = await call<CreditsView>('GET', '/v1/credits', keyA);
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      tenantId: 'tenant-a',
      accounts: [
        { channel: 'whatsapp', balance: 0, price: null, metered: false },
        { channel: 'sms', balance: 1_250, price: 2, metered: true },
        { channel: 'email', balance: 0, price: null, metered: false },
      ],
      quotas: {
        dailyLimit: 500,
        monthlyLimit: null,
        day: { period: periods.day.slice(1), used: 42, limit: 500 },
        month: { period: periods.month.slice(1), used: 0, limit: null },
      },
    });
    // Left out: unchanged; null: no cap.
    const cleared = await operator<CreditQuotasUpdateView>('PUT', '/v1/credits/quotas', 'tenant-a', {
      monthlyLimit: 9_000,
    });
    expect(cleared.body).toMatchObject({ dailyLimit: 500, monthlyLimit: 9_000 });
    const lifted = await operator<CreditQuotasUpdateView>('PUT', '/v1/credits/quotas', 'tenant-a', {
      dailyLimit: null,
    });
    expect(lifted.body).toMatchObject({ dailyLimit: null, monthlyLimit: 9_000 });
  });

  it('pages the ledger newest first, filtered, and never shows another tenant', async () => {
    await topUp('tenant-a', { channel: 'whatsapp', amount: 30, reference: 'wa-1' });
    await topUp('tenant-b', { channel: 'sms', amount: 999, reference: 'b-1' });
    const all = await call<CreditLedgerPage>('GET', '/v1/credits/ledger', keyA);
    expect(all.status).toBe(200);
    expect(all.body.items.map((e) => [e.channel, e.amount])).toEqual([
      ['whatsapp', 30],
      ['sms', 250],
      ['sms', 1_000],
    ]);
    expect(all.body.next).toBeNull();
    const page1 = await call<CreditLedgerPage>('GET', '/v1/credits/ledger?limit=2', keyA);
    expect(page1.body.items).toHaveLength(2);
    expect(page1.body.next).toBe(page1.body.items[1]?.id);
    const page2 = await call<CreditLedgerPage>(
      'GET',
      `/v1/credits/ledger?limit=2&before=${page1.body.next ?? ''}`,
      keyA,
    );
    expect(page2.body.items.map((e) => e.amount)).toEqual([1_000]);
    const sms = await call<CreditLedgerPage>('GET', '/v1/credits/ledger?channel=sms&kind=TOP_UP', keyA);
    expect(sms.body.items.map((e) => e.amount)).toEqual([250, 1_000]);
    const refunds = await call<CreditLedgerPage>('GET', '/v1/credits/ledger?kind=REFUND', keyA);
    expect(refunds.body.items).toEqual([]);

    const ofB = await call<CreditLedgerPage>('GET', '/v1/credits/ledger', keyB);
    expect(ofB.body.items.map((e) => e.reference)).toEqual(['b-1']);
    const viewB = await call<CreditsView>('GET', '/v1/credits', keyB);
    expect(viewB.body.accounts.find((a) => a.channel === 'sms')?.balance).toBe(999);
    // A tenant key may not name another tenant.
    const foreign = await call('GET', '/v1/credits/ledger', keyB, { tenant: 'tenant-a' });
    expect(foreign.status).toBe(403);
    expect((foreign.body as unknown as ErrorBody).error.code).toBe(AuthErrorCode.TenantHeaderForbidden);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['PUT', '/v1/credits/prices/sms', { price: -1 }, 'price'],
      ['PUT', '/v1/credits/prices/sms', { price: 1.5 }, 'price'],
      ['PUT', '/v1/credits/prices/sms', {}, 'price'],
      ['PUT', '/v1/credits/prices/pigeon', { price: 1 }, 'channel'],
      ['POST', '/v1/credits/top-ups', { channel: 'sms', amount: -5, reference: 'x' }, 'amount'],
      ['POST', '/v1/credits/top-ups', { channel: 'sms', amount: 2.5, reference: 'x' }, 'amount'],
      ['POST', '/v1/credits/top-ups', { channel: 'sms', amount: '10', reference: 'x' }, 'amount'],
      ['POST', '/v1/credits/top-ups', { channel: 'fax', amount: 10, reference: 'x' }, 'channel'],
      ['POST', '/v1/credits/top-ups', { channel: 'sms', amount: 10 }, 'reference'],
      [
        'POST',
        '/v1/credits/top-ups',
        { channel: 'sms', amount: 10, reference: 'r'.repeat(129) },
        'reference',
      ],
      ['PUT', '/v1/credits/quotas', { dailyLimit: 0 }, 'dailyLimit'],
      ['PUT', '/v1/credits/quotas', { monthlyLimit: 'many' }, 'monthlyLimit'],
    ];
    const failures: string[] = [];
    for (const [method, path, body, field] of cases) {
      const answer = await operator(method, path, 'tenant-a', body);
      const error = (answer.body as unknown as ErrorBody).error;
      const fields = new Set(error?.fields?.map((f) => f.field));
      if (answer.status !== 400 || error.code !== HttpErrorCode.ValidationFailed || !fields.has(field)) {
        failures.push(`${method} ${path} ${JSON.stringify(body)}: ${answer.status} ${JSON.stringify(error)}`);
      }
    }
    expect(failures).toEqual([]);
    expect((await call('GET', '/v1/credits/ledger?kind=GIFT', keyA)).status).toBe(400);
    // The operator must name the tenant it acts for.
    const noTenant = await call('POST', '/v1/credits/top-ups', TEST_OPERATOR_KEY, {
      body: { channel: 'sms', amount: 1, reference: 'x' },
    });
    expect(noTenant.status).toBe(400);
    expect((noTenant.body as unknown as ErrorBody).error.code).toBe(HttpErrorCode.TenantRequired);
    await expectLedgerMatchesBalances();
  });

  it('lets only the operator top up, price and cap; credits:read to read', async () => {
    const before = (await ds.query('SELECT COUNT(*) AS n FROM credit_ledger')) as { n: string }[];
    for (const [method, path, body] of [
      ['POST', '/v1/credits/top-ups', { channel: 'sms', amount: 1_000_000, reference: 'self' }],
      ['PUT', '/v1/credits/prices/sms', { price: 0 }],
      ['PUT', '/v1/credits/quotas', { dailyLimit: null }],
    ] as const) {
      const answer = await call(method, path, keyA, { body });
      expect([path, answer.status]).toEqual([path, 403]);
      expect((answer.body as unknown as ErrorBody).error.code).toBe(AuthErrorCode.ScopeMissing);
    }
    expect((await ds.query('SELECT COUNT(*) AS n FROM credit_ledger')) as { n: string }[]).toEqual(before);
    // No tenant key can be given the operator's scope.
    const escalate = await call('POST', '/v1/api-keys', TEST_OPERATOR_KEY, {
      tenant: 'tenant-a',
      body: { name: 'admin?', scopes: [Scope.CreditsAdmin] },
    });
    expect(escalate.status).toBe(400);
    const whoami = await call<{ scopes: string[] }>('GET', '/v1/whoami', keyA);
    expect(whoami.body.scopes).toContain(Scope.CreditsRead);
    expect(whoami.body.scopes).not.toContain(Scope.CreditsAdmin);
    for (const path of ['/v1/credits', '/v1/credits/ledger']) {
      expect((await call('GET', path, keyWithoutScope)).status).toBe(403);
    }
  });

  it("resumes the channel's runs paused for credits on a top-up, never a run paused by a person", async () => {
    const forCredits = await pausedRun('cmp-sms-a', 'CREDITS_EXHAUSTED');
    const byPerson = await pausedRun('cmp-sms-a', null);
    const otherChannel = await pausedRun('cmp-wa-a', 'CREDITS_EXHAUSTED');
    const otherTenant = await pausedRun('cmp-sms-b', 'CREDITS_EXHAUSTED');
    const forQuota = await pausedRun('cmp-sms-a', 'QUOTA_EXHAUSTED');

    const answer = await topUp('tenant-a', { channel: 'sms', amount: 100, reference: 'inv-3' });
    expect(answer.body).toMatchObject({ replayed: false, resumedRuns: 1, balance: 1_350 });
    expect(await runOf(forCredits)).toEqual({ state: 'RUNNING', pause_reason: null });
    expect(await runOf(byPerson)).toEqual({ state: 'PAUSED', pause_reason: null });
    expect(await runOf(otherChannel)).toEqual({ state: 'PAUSED', pause_reason: 'CREDITS_EXHAUSTED' });
    expect(await runOf(otherTenant)).toEqual({ state: 'PAUSED', pause_reason: 'CREDITS_EXHAUSTED' });
    // Tenant A has no quota cap on its day left (lifted above): the sweeper resumes its quota-paused run.
    await waitUntil(
      'the sweeper to resume the quota-paused run',
      async () => (await runOf(forQuota)).state === 'RUNNING',
      {
        timeoutMs: 15_000,
      },
    );
    expect(await runOf(forQuota)).toEqual({ state: 'RUNNING', pause_reason: null });
    // The resume went the way of the run action: a lifecycle event in the outbox, the epoch moved on.
    const events = (await ds.query('SELECT COUNT(*) AS n FROM run_events WHERE run_id = ?', [
      forCredits,
    ])) as {
      n: string;
    }[];
    expect(Number(events[0]?.n)).toBeGreaterThan(0);
    await expectLedgerMatchesBalances();
  });

  it('clears the pause reason when a person resumes a paused run', async () => {
    const runId = await pausedRun('cmp-wa-a', 'CREDITS_EXHAUSTED');
    const answer = await call('POST', `/v1/campaigns/cmp-wa-a/runs/${runId}/resume`, keyA);
    expect(answer.status).toBe(200);
    expect(await runOf(runId)).toEqual({ state: 'RUNNING', pause_reason: null });
  });

  it('resumes quota-paused runs once the tenant is under its caps again, and prunes old counts', async () => {
    const periods = quotaPeriodsAt(new Date());
    await operator('PUT', '/v1/credits/quotas', 'tenant-q', { dailyLimit: 10, monthlyLimit: 1_000 });
    await ds.query('INSERT INTO credit_quota_usage (tenant_id, period, used) VALUES (?, ?, 10), (?, ?, 10)', [
      'tenant-q',
      periods.day,
      'tenant-q',
      periods.month,
    ]);
    const runId = await pausedRun('cmp-sms-q', 'QUOTA_EXHAUSTED');
    const old = quotaPeriodsAt(new Date(Date.now() - 100 * 86_400_000));
    await ds.query('INSERT INTO credit_quota_usage (tenant_id, period, used) VALUES (?, ?, 5), (?, ?, 5)', [
      'tenant-q',
      old.day,
      'tenant-q',
      old.month,
    ]);
    // Several sweeper ticks: the day is at its cap, the run stays paused; the old counts go.
    await waitUntil(
      'the sweeper to delete the counts 100 days old',
      async () => {
        const rows = (await ds.query('SELECT period FROM credit_quota_usage WHERE tenant_id = ?', [
          'tenant-q',
        ])) as { period: string }[];
        return rows.length === 2;
      },
      { timeoutMs: 15_000 },
    );
    const kept = (await ds.query(
      'SELECT period FROM credit_quota_usage WHERE tenant_id = ? ORDER BY period',
      ['tenant-q'],
    )) as { period: string }[];
    expect(kept.map((r) => r.period)).toEqual([periods.day, periods.month].sort());
    expect(await runOf(runId)).toEqual({ state: 'PAUSED', pause_reason: 'QUOTA_EXHAUSTED' });

    await operator('PUT', '/v1/credits/quotas', 'tenant-q', { dailyLimit: 11 });
    await waitUntil('the sweeper to resume the run', async () => (await runOf(runId)).state === 'RUNNING', {
      timeoutMs: 15_000,
    });
    expect(await runOf(runId)).toEqual({ state: 'RUNNING', pause_reason: null });
  });

  it('resumes runs paused for credits when a price change makes a message affordable', async () => {
    const runId = await pausedRun('cmp-sms-b', 'CREDITS_EXHAUSTED');
    // 1,000 credits a message: tenant B's 999 do not buy one.
    const dear = await operator<CreditPriceView>('PUT', '/v1/credits/prices/sms', 'tenant-b', {
      price: 1_000,
    });
    expect(dear.body).toMatchObject({ balance: 999, price: 1_000, resumedRuns: 0 });
    expect(await runOf(runId)).toEqual({ state: 'PAUSED', pause_reason: 'CREDITS_EXHAUSTED' });
    // 1 a message: both of its runs paused for credits on SMS go on.
    const cheap = await operator<CreditPriceView>('PUT', '/v1/credits/prices/sms', 'tenant-b', { price: 1 });
    expect(cheap.body).toMatchObject({ balance: 999, price: 1, resumedRuns: 2 });
    expect(await runOf(runId)).toEqual({ state: 'RUNNING', pause_reason: null });
    await expectLedgerMatchesBalances();
  });

  it('exposes balances, top-ups and runs paused for credits as metrics', async () => {
    const metrics = async (): Promise<string> => (await fetch(`${service.managementUrl}/metrics`)).text();
    /** A line of the exposition: the series' labels, then the service's default one. */
    const line = (name: string, labels: string, value: number): RegExp =>
      new RegExp(
        `^${name}\\{${labels}${labels === '' ? '' : ','}service="campaign-scheduler"\\} ${value}$`,
        'm',
      );
    // Left paused for credits: tenant A's WhatsApp run (its WhatsApp account has no price to resume it).
    const settled = (text: string): boolean =>
      line('ums_credit_balance', 'tenant="tenant-b",channel="sms"', 999).test(text) &&
      line('ums_runs_paused_for_credits', '', 1).test(text);
    await waitUntil(
      'the credit gauges to be read after the last price change',
      async () => settled(await metrics()),
      {
        timeoutMs: 15_000,
      },
    );
    const text = await metrics();
    expect(text).toMatch(line('ums_credit_balance', 'tenant="tenant-a",channel="sms"', 1_350));
    // Unmetered accounts (no price) have no series.
    expect(text).not.toMatch(/^ums_credit_balance\{tenant="tenant-c"/m);
    expect(text).not.toMatch(/^ums_credit_balance\{tenant="tenant-a",channel="whatsapp"/m);
    // inv-1, inv-2, b-1 and inv-3: replays and the refused reuse of a reference are not counted.
    expect(text).toMatch(line('ums_credit_top_ups_total', 'channel="sms"', 4));
    expect(text).toMatch(line('ums_credit_top_ups_total', 'channel="email"', 1));
  });
});
