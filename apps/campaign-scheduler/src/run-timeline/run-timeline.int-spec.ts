import { randomBytes } from 'node:crypto';
import {
  AllTopics,
  AuthErrorCode,
  HttpErrorCode,
  RunErrorCode,
  type RunTimelineSecond,
  type RunTimelineView,
  Scope,
  TENANT_HEADER,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTenantKey,
  createTestDatabase,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[] };
}

/** A message time not reached (the messages table's NEVER). */
const NEVER = '1970-01-01 00:00:00.000';

interface MessageTimes {
  readonly state: string;
  readonly sent?: string;
  readonly delivered?: string;
  readonly read?: string;
  readonly failed?: string;
  readonly updated?: string;
}

/** The seconds of a timeline with any count, as `[second (HH:MM:SS), counts]`. */
function active(seconds: readonly RunTimelineSecond[]): [string, Omit<RunTimelineSecond, 'at'>][] {
  return seconds
    .filter((s) => s.sent + s.delivered + s.read + s.failed + s.unknown > 0)
    .map(({ at, ...counts }) => [at.slice(11, 19), counts]);
}

const counts = (c: Partial<Omit<RunTimelineSecond, 'at'>>): Omit<RunTimelineSecond, 'at'> => ({
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  unknown: 0,
  ...c,
});

/**
 * GET /v1/campaigns/{campaignId}/runs/{runId}/timeline of the real service (built from dist/) over
 * message rows and `credential_rate_seconds` rows with known times: the window, the counts per second
 * and stage, the credential's rows, the tenant check, the validation and the cache of finished runs.
 */
describe('run timeline API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let keyA = '';
  let keyB = '';
  let nextContact = 1;

  beforeAll(async () => {
    database = await createTestDatabase('ums_run_timeline');
    ds = await createDataSource(database.settings).initialize();
    await runPendingMigrations(ds);
    for (const [id, tenant] of [
      ['cred-a', 'tenant-a'],
      ['cred-other', 'tenant-a'],
    ]) {
      await ds.query(
        `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
         VALUES (?, ?, 'sim', 'simulator', 'sms', '{}', 100, 5)`,
        [id, tenant],
      );
    }
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind)
       VALUES ('cmp-a', 'tenant-a', 'timeline', 'sms', 'cred-a', '{"text":"Hi"}', 'now'),
              ('cmp-other', 'tenant-a', 'other', 'sms', 'cred-other', '{"text":"Hi"}', 'now')`,
    );
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: serviceEnv(database.settings.database, namespace),
    });
    keyA = await createTenantKey(service.url, 'tenant-a');
    keyB = await createTenantKey(service.url, 'tenant-b');
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  /**
   * A run of the campaign; times are SQL expressions (literals quoted by the caller) or NULL. Its fire_at
   * is far ahead and its own (unique per campaign): the scheduler never takes it up.
   */
  async function run(
    state: string,
    startedAt: string,
    finishedAt: string,
    campaignId = 'cmp-a',
  ): Promise<string> {
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, started_at, finished_at)
       VALUES (?, TIMESTAMP('2099-01-01') + INTERVAL ? SECOND, ?, ${startedAt}, ${finishedAt})`,
      [campaignId, nextContact++, state],
    )) as { insertId: number };
    return String(result.insertId);
  }

  async function message(runId: string, times: MessageTimes, campaignId = 'cmp-a'): Promise<void> {
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
                             state, sent_at, delivered_at, read_at, failed_at, updated_at)
       VALUES (?, ?, 'tenant-a', ?, 'sms', 'cred-a', '+4915100000001', 'bulk', ?, ?, ?, ?, ?, ?)`,
      [
        runId,
        campaignId,
        nextContact++,
        times.state,
        times.sent ?? NEVER,
        times.delivered ?? NEVER,
        times.read ?? NEVER,
        times.failed ?? NEVER,
        times.updated ?? '2026-03-01 09:00:00.000',
      ],
    );
  }

  async function rateRow(credentialId: string, second: string, rate: number, congested = 0): Promise<void> {
    await ds.query(
      `INSERT INTO credential_rate_seconds
         (credential_id, second_at, tenant_id, rate, granted, accepted, congested, errors_5xx, timeouts, decreases)
       VALUES (?, ?, 'tenant-a', ?, ?, ?, ?, 0, 0, ?)`,
      [credentialId, second, rate, rate, rate, congested, congested > 0 ? 1 : 0],
    );
  }

  const timelinePath = (runId: string, campaignId = 'cmp-a'): string =>
    `/v1/campaigns/${campaignId}/runs/${runId}/timeline`;

  async function timeline(runId: string, key = keyA): Promise<RunTimelineView> {
    const answer = await jsonCall(service.url, 'GET', timelinePath(runId), undefined, key);
    if (answer.status !== 200) throw new Error(`timeline answered ${answer.status}: ${answer.text}`);
    return answer.body as unknown as RunTimelineView;
  }

  let finishedRun = '';

  it("counts a finished run's messages per second and stage, and its credential's rows, in its window", async () => {
    finishedRun = await run('COMPLETED', "'2026-03-01 10:00:00.300'", "'2026-03-01 10:01:40.500'");
    const other = await run('COMPLETED', "'2026-03-01 10:00:00.000'", "'2026-03-01 10:01:40.000'");
    await message(finishedRun, {
      state: 'READ',
      sent: '2026-03-01 10:00:10.100',
      delivered: '2026-03-01 10:00:11.900',
      read: '2026-03-01 10:00:30.000',
    });
    await message(finishedRun, {
      state: 'DELIVERED',
      sent: '2026-03-01 10:00:10.999',
      delivered: '2026-03-01 10:00:12.000',
    });
    await message(finishedRun, { state: 'FAILED', failed: '2026-03-01 10:00:20.700' });
    // UNKNOWN by the second its row last changed; one that became UNKNOWN before the window is not counted.
    await message(finishedRun, { state: 'UNKNOWN', updated: '2026-03-01 10:01:40.400' });
    await message(finishedRun, { state: 'UNKNOWN', updated: '2026-03-01 09:59:59.999' });
    // A PENDING row changed in the window counts nowhere; a delivery after the window is left out.
    await message(finishedRun, { state: 'PENDING', updated: '2026-03-01 10:00:10.000' });
    await message(finishedRun, {
      state: 'DELIVERED',
      sent: '2026-03-01 10:01:40.999',
      delivered: '2026-03-01 10:01:41.000',
    });
    // Another run's message in the same seconds.
    await message(other, { state: 'SENT', sent: '2026-03-01 10:00:10.500' });
    await rateRow('cred-a', '2026-03-01 09:59:59', 10);
    await rateRow('cred-a', '2026-03-01 10:00:10', 40, 3);
    await rateRow('cred-a', '2026-03-01 10:01:40', 20);
    await rateRow('cred-a', '2026-03-01 10:01:41', 30);
    await rateRow('cred-other', '2026-03-01 10:00:11', 50);

    const view = await timeline(finishedRun);
    expect(Object.keys(view).sort()).toEqual(['from', 'rate', 'seconds', 'to']);
    expect([view.from, view.to]).toEqual(['2026-03-01T10:00:00.000Z', '2026-03-01T10:01:41.000Z']);
    // Every second of the window, oldest first.
    expect(view.seconds).toHaveLength(101);
    expect(view.seconds[0]).toEqual({ at: '2026-03-01T10:00:00.000Z', ...counts({}) });
    expect(view.seconds.at(-1)?.at).toBe('2026-03-01T10:01:40.000Z');
    expect(active(view.seconds)).toEqual([
      ['10:00:10', counts({ sent: 2 })],
      ['10:00:11', counts({ delivered: 1 })],
      ['10:00:12', counts({ delivered: 1 })],
      ['10:00:20', counts({ failed: 1 })],
      ['10:00:30', counts({ read: 1 })],
      ['10:01:40', counts({ sent: 1, unknown: 1 })],
    ]);
    expect(view.rate).toEqual([
      {
        at: '2026-03-01T10:00:10.000Z',
        rate: 40,
        accepted: 40,
        congested: 3,
        errors5xx: 0,
        timeouts: 0,
        decreases: 1,
      },
      {
        at: '2026-03-01T10:01:40.000Z',
        rate: 20,
        accepted: 20,
        congested: 0,
        errors5xx: 0,
        timeouts: 0,
        decreases: 0,
      },
    ]);
  });

  it('keeps the last 15 minutes of a longer run', async () => {
    const runId = await run('STOPPED', "'2026-03-01 08:00:00.000'", "'2026-03-01 09:00:00.000'");
    await message(runId, { state: 'SENT', sent: '2026-03-01 08:45:00.900' });
    await message(runId, { state: 'SENT', sent: '2026-03-01 08:45:01.000' });
    await message(runId, { state: 'SENT', sent: '2026-03-01 09:00:00.500' });
    const view = await timeline(runId);
    expect([view.from, view.to, view.seconds.length]).toEqual([
      '2026-03-01T08:45:01.000Z',
      '2026-03-01T09:00:01.000Z',
      900,
    ]);
    expect(active(view.seconds)).toEqual([
      ['08:45:01', counts({ sent: 1 })],
      ['09:00:00', counts({ sent: 1 })],
    ]);
  });

  it('ends the window of a running run with the current second, and answers an empty one before it starts', async () => {
    const runId = await run('RUNNING', 'UTC_TIMESTAMP(3) - INTERVAL 20 SECOND', 'NULL');
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
                             state, sent_at)
       VALUES (?, 'cmp-a', 'tenant-a', ?, 'sms', 'cred-a', '+4915100000002', 'bulk', 'SENT',
               UTC_TIMESTAMP(3) - INTERVAL 5 SECOND)`,
      [runId, nextContact++],
    );
    const [started] = (await ds.query('SELECT started_at FROM runs WHERE id = ?', [runId])) as {
      started_at: Date;
    }[];
    const view = await timeline(runId);
    expect(view.from).toBe(new Date(Math.floor(Number(started?.started_at) / 1000) * 1000).toISOString());
    expect(Date.parse(view.to) - Date.parse(view.from)).toBe(view.seconds.length * 1000);
    expect(view.seconds.length).toBeGreaterThanOrEqual(21);
    expect(view.seconds.reduce((sum, s) => sum + s.sent, 0)).toBe(1);

    const scheduled = await run('PENDING', 'NULL', 'NULL');
    const empty = await timeline(scheduled);
    expect([empty.seconds, empty.rate, empty.from === empty.to]).toEqual([[], [], true]);
  });

  it("keeps a finished run's timeline until the run's updated_at changes", async () => {
    const before = await timeline(finishedRun);
    await message(finishedRun, { state: 'SENT', sent: '2026-03-01 10:00:50.000' });
    expect(await timeline(finishedRun)).toEqual(before);
    await ds.query('UPDATE runs SET updated_at = UTC_TIMESTAMP(3) + INTERVAL 1 SECOND WHERE id = ?', [
      finishedRun,
    ]);
    const after = await timeline(finishedRun);
    expect(active(after.seconds)).toContainEqual(['10:00:50', counts({ sent: 1 })]);
    expect(after.seconds.reduce((sum, s) => sum + s.sent, 0)).toBe(4);
  });

  it("answers another tenant's run 404 like a missing one; the operator reads any", async () => {
    const refusals = [
      { path: timelinePath(finishedRun), key: keyB },
      { path: timelinePath(finishedRun, 'cmp-other'), key: keyA },
      { path: timelinePath('999999'), key: keyA },
    ];
    for (const { path, key } of refusals) {
      const answer = await jsonCall(service.url, 'GET', path, undefined, key);
      expect([path, answer.status, (answer.body as unknown as ErrorBody).error.code]).toEqual([
        path,
        404,
        RunErrorCode.NotFound,
      ]);
    }
    expect((await timeline(finishedRun, TEST_OPERATOR_KEY)).seconds).toHaveLength(101);
    const actingForB = await jsonCall(
      service.url,
      'GET',
      timelinePath(finishedRun),
      undefined,
      TEST_OPERATOR_KEY,
      {
        [TENANT_HEADER]: 'tenant-b',
      },
    );
    expect(actingForB.status).toBe(404);
  });

  it('refuses ids that are not ids, naming the parameter, and a key without campaigns:read', async () => {
    for (const [path, field] of [
      [timelinePath('abc'), 'runId'],
      [timelinePath('1', 'not%20an%20id'), 'campaignId'],
    ] as const) {
      const answer = await jsonCall(service.url, 'GET', path, undefined, keyA);
      const { error } = answer.body as unknown as ErrorBody;
      expect([answer.status, error.code]).toEqual([400, HttpErrorCode.ValidationFailed]);
      expect(new Set(error.fields?.map((f) => f.field))).toEqual(new Set([field]));
    }
    const narrow = await createTenantKey(service.url, 'tenant-a', [Scope.MessagesRead]);
    const answer = await jsonCall(service.url, 'GET', timelinePath(finishedRun), undefined, narrow);
    expect([answer.status, (answer.body as unknown as ErrorBody).error.code]).toEqual([
      403,
      AuthErrorCode.ScopeMissing,
    ]);
  });

  it('answers concurrent callers the timeline or a typed 429, never anything else', async () => {
    const runId = await run('RUNNING', 'UTC_TIMESTAMP(3) - INTERVAL 60 SECOND', 'NULL');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => jsonCall(service.url, 'GET', timelinePath(runId), undefined, keyA)),
    );
    for (const answer of answers) {
      const outcome =
        answer.status === 200 ? 'ok' : `${answer.status} ${(answer.body as unknown as ErrorBody).error.code}`;
      expect(['ok', `429 ${RunErrorCode.TimelineBusy}`]).toContain(outcome);
    }
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
  });
});
