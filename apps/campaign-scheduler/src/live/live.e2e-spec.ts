import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type ClientRequest, get, type IncomingMessage } from 'node:http';
import {
  ALL_SCOPES,
  OPERATOR_SCOPES,
  AllTopics,
  AuthErrorCode,
  type LiveCampaignsFrame,
  LiveErrorCode,
  RunErrorCode,
  type RunSample,
  type RunSampleHistory,
  Scope,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTenantKey,
  createTestDatabase,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  sumMetric,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const TENANT_A = 'live-a';
const TENANT_B = 'live-b';
const CONSOLES = 10;

interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * A live stream read as the console reads it (a GET with a bearer key), split into its events. Read with
 * node:http on a connection of its own, closed by destroying it (fetch's pool would open a spare
 * connection after an abort, which holds the server's shutdown until its headers timeout).
 */
class EventStream {
  readonly events: StreamEvent[] = [];
  comments = 0;
  private buffer = '';
  private text = '';
  private readonly ended: Promise<unknown>;

  private constructor(
    private readonly request: ClientRequest,
    private readonly response: IncomingMessage,
  ) {
    response.setEncoding('utf8');
    // Closing the stream (destroy) ends it with an 'aborted' error: expected, not a failure.
    this.ended = once(response, 'end').catch(() => undefined);
    response.on('error', () => undefined);
    const events = this.header('content-type').startsWith('text/event-stream');
    response.on('data', (chunk: string) => (events ? this.feed(chunk) : (this.text += chunk)));
  }

  /** Opens the stream; a refusal's JSON answer is read with json(). */
  static open(url: string, key: string): Promise<EventStream> {
    return new Promise((resolve, reject) => {
      const request = get(
        url,
        { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, agent: false },
        (response) => resolve(new EventStream(request, response)),
      );
      request.on('error', reject);
    });
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  header(name: string): string {
    return String(this.response.headers[name] ?? '');
  }

  /** The JSON body of a refusal. */
  async json(): Promise<{ error: { code: string } }> {
    await this.ended;
    return JSON.parse(this.text) as { error: { code: string } };
  }

  /** The `data` of every event named `name`, in order. */
  data<T>(name: string): T[] {
    return this.events.filter((e) => e.event === name).map((e) => e.data as T);
  }

  close(): void {
    this.request.destroy();
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
      this.parse(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
    }
  }

  private parse(block: string): void {
    const lines = block.split('\n');
    if (lines.every((line) => line.startsWith(':'))) {
      this.comments += 1;
      return;
    }
    const field = (name: string): string | undefined =>
      lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    this.events.push({ event: field('event') ?? 'message', data: JSON.parse(field('data') ?? 'null') });
  }
}

/**
 * The live streams and whoami against a campaign-scheduler process on MariaDB: ten consoles on one run
 * cost one load a second, samples follow the run's counters and its credential's rate row, a stream
 * nobody watches is not loaded, another tenant gets 404 before any stream, and the limits answer 429.
 */
describe('live streams and whoami (scheduler process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let scheduler: ServiceProcess;
  let keyA = '';
  let keyB = '';
  let campaignId = '';
  let runId = '';
  let credentialId = '';
  const open: EventStream[] = [];
  /** The ten consoles watching the run. */
  let consoles: EventStream[] = [];

  const runUrl = (campaign = campaignId): string =>
    `${scheduler.url}/v1/live/campaigns/${campaign}/runs/${runId}`;
  const metric = (name: string, labels: Record<string, string> = {}): Promise<number> =>
    sumMetric([scheduler.managementUrl], name, labels);
  const stream = async (url: string, key: string): Promise<EventStream> => {
    const opened = await EventStream.open(url, key);
    open.push(opened);
    return opened;
  };

  beforeAll(async () => {
    database = await createTestDatabase('ums_live');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    scheduler = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(database.settings.database, namespace),
        LIVE_MAX_CONNECTIONS: String(CONSOLES + 2),
        LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: String(CONSOLES),
      },
    });
    keyA = await createTenantKey(scheduler.url, TENANT_A);
    keyB = await createTenantKey(scheduler.url, TENANT_B);
    ({ campaignId, runId, credentialId } = await seedRun(scheduler.url, keyA, ds));
  });

  afterAll(async () => {
    for (const s of open) s.close();
    await scheduler?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  it('answers whoami for a tenant key, a key of one scope and the operator, and 401 without a key', async () => {
    const tenant = await jsonCall(scheduler.url, 'GET', '/v1/whoami', undefined, keyA);
    expect(tenant.status).toBe(200);
    expect(tenant.body).toEqual({
      kind: 'api-key',
      id: expect.stringMatching(/^key_/) as unknown,
      tenantId: TENANT_A,
      scopes: [...ALL_SCOPES],
    });
    expect(tenant.text).not.toContain(keyA.slice(-20));
    const narrow = await createTenantKey(scheduler.url, TENANT_A, [Scope.OptOutsRead]);
    expect((await jsonCall(scheduler.url, 'GET', '/v1/whoami', undefined, narrow)).body).toMatchObject({
      tenantId: TENANT_A,
      scopes: [Scope.OptOutsRead],
    });
    const operator = await jsonCall(scheduler.url, 'GET', '/v1/whoami', undefined, TEST_OPERATOR_KEY);
    expect(operator.body).toEqual({
      kind: 'operator',
      id: 'operator',
      tenantId: null,
      scopes: [...OPERATOR_SCOPES],
    });
    const actingFor = await jsonCall(scheduler.url, 'GET', '/v1/whoami', undefined, TEST_OPERATOR_KEY, {
      'x-ums-tenant': TENANT_B,
    });
    expect(actingFor.body).toMatchObject({ kind: 'operator', tenantId: TENANT_B });
    const anonymous = await jsonCall(scheduler.url, 'GET', '/v1/whoami');
    expect([anonymous.status, (anonymous.body['error'] as { code: string }).code]).toEqual([
      401,
      AuthErrorCode.Missing,
    ]);
  });

  it('refuses with a JSON error before any stream: another tenant 404, no key 401, no scope 403', async () => {
    const refusals = [
      { url: runUrl(), key: keyB, status: 404, code: RunErrorCode.NotFound },
      { url: runUrl('cmp_not_this_one'), key: keyA, status: 404, code: RunErrorCode.NotFound },
      {
        url: runUrl(),
        key: await createTenantKey(scheduler.url, TENANT_A, [Scope.MessagesRead]),
        status: 403,
        code: AuthErrorCode.ScopeMissing,
      },
    ];
    for (const { url, key, status, code } of refusals) {
      const refused = await stream(url, key);
      expect(refused.header('content-type')).toMatch(/^application\/json/);
      expect([refused.status, (await refused.json()).error.code]).toEqual([status, code]);
    }
    expect((await jsonCall(scheduler.url, 'GET', '/v1/live/campaigns')).status).toBe(401);
  });

  it("streams each tenant's own campaigns with their latest run", async () => {
    const [a, b] = [
      await stream(`${scheduler.url}/v1/live/campaigns`, keyA),
      await stream(`${scheduler.url}/v1/live/campaigns`, keyB),
    ];
    await waitUntil(
      'a campaigns frame on both',
      () => a.data('campaigns').length > 0 && b.data('campaigns').length > 0,
    );
    const [frameA] = a.data<LiveCampaignsFrame>('campaigns');
    expect(frameA?.campaigns.map((c) => [c.id, c.tenantId, c.latestRun?.id])).toEqual([
      [campaignId, TENANT_A, runId],
    ]);
    expect(b.data<LiveCampaignsFrame>('campaigns')[0]?.campaigns).toEqual([]);
    for (const s of [a, b]) s.close();
    await waitUntil('the streams closed', async () => (await metric('ums_live_connections')) === 0);
  });

  it('loads a run watched by ten consoles once a second, whatever their number', async () => {
    consoles = await Promise.all(Array.from({ length: CONSOLES }, () => stream(runUrl(), keyA)));
    for (const c of consoles) {
      expect(c.status).toBe(200);
      expect(c.header('content-type')).toMatch(/^text\/event-stream/);
      expect(c.header('cache-control')).toContain('no-cache');
      expect(c.header('x-accel-buffering')).toBe('no');
    }
    await waitUntil('every console has its history', () => consoles.every((c) => c.events.length > 0));
    for (const c of consoles) expect(c.events[0]?.event).toBe('history');
    expect(await metric('ums_live_connections')).toBe(CONSOLES);
    expect(await metric('ums_live_watched_topics', { topic_kind: 'run' })).toBe(1);
    const loadsBefore = await metric('ums_live_topic_loads_total', { topic_kind: 'run' });
    const seen = consoles.map((c) => c.data('sample').length);
    await waitUntil('five more samples on every console', () =>
      consoles.every((c, i) => c.data('sample').length >= (seen[i] ?? 0) + 5),
    );
    const loads = (await metric('ums_live_topic_loads_total', { topic_kind: 'run' })) - loadsBefore;
    const delivered = consoles.reduce((n, c, i) => n + c.data('sample').length - (seen[i] ?? 0), 0);
    const mostOnOne = Math.max(...consoles.map((c, i) => c.data('sample').length - (seen[i] ?? 0)));
    process.stdout.write(`live: ${delivered} samples to ${CONSOLES} consoles from ${loads} loads\n`);
    expect(delivered).toBeGreaterThanOrEqual(CONSOLES * 5);
    // One load per second for all ten (the scrapes may straddle a tick or two), never one per console.
    expect(loads).toBeGreaterThanOrEqual(4);
    expect(loads).toBeLessThanOrEqual(mostOnOne + 2);
    // Every console got the very same sample for the same second: one load, fanned out.
    const last = consoles[0]?.data<RunSample>('sample').at(-2);
    for (const c of consoles) expect(c.data<RunSample>('sample')).toContainEqual(last);
  });

  it("sends samples that follow the run's counters and its credential's rate row", async () => {
    await ds.query(
      'UPDATE runs SET total = 100, pending = 32, sent = 40, delivered = 25, failed = 3 WHERE id = ?',
      [runId],
    );
    // The credential's limiter rows, as the senders write them, for the seconds around now.
    const seconds = Array.from({ length: 120 }, (_, i) => i - 5);
    await ds.query(
      `INSERT INTO credential_rate_seconds (credential_id, second_at, tenant_id, rate, granted, accepted,
         congested, errors_5xx, timeouts, decreases)
       VALUES ${seconds.map(() => '(?, UTC_TIMESTAMP() + INTERVAL ? SECOND, ?, 12.5, 14, 12, 2, 1, 0, 1)').join(', ')}`,
      seconds.flatMap((n) => [credentialId, n, TENANT_A]),
    );
    await waitUntil('the new counters and rate on every console', () =>
      consoles.every((c) => {
        const sample = c.data<RunSample>('sample').at(-1);
        return sample?.counters.sent === 40 && sample.rate !== null;
      }),
    );
    const latest = consoles[0]?.data<RunSample>('sample').at(-1);
    expect(latest?.counters).toMatchObject({ total: 100, pending: 32, sent: 40, delivered: 25, failed: 3 });
    expect(latest?.rate).toEqual({
      rate: 12.5,
      accepted: 12,
      congested: 2,
      errors5xx: 1,
      timeouts: 0,
      decreases: 1,
    });
    expect(consoles[0]?.data<RunSample>('sample')[0]?.rate).toBeNull();
  });

  it('refuses streams past the limits with 429, and gives a late console the history at once', async () => {
    // An eleventh stream of the key that holds ten, then one past the process's twelve.
    const eleventh = await stream(runUrl(), keyA);
    expect(eleventh.status).toBe(429);
    expect((await eleventh.json()).error.code).toBe(LiveErrorCode.PrincipalLimitReached);
    const late = await stream(runUrl(), TEST_OPERATOR_KEY);
    await waitUntil('the late console has its history', () => late.events.length > 0);
    const [history] = late.data<RunSampleHistory>('history');
    expect(late.events[0]?.event).toBe('history');
    expect(history?.samples.length).toBeGreaterThanOrEqual(5);
    expect(history?.samples.at(-1)?.counters.sent).toBe(40);
    await stream(`${scheduler.url}/v1/live/campaigns`, TEST_OPERATOR_KEY);
    const past = await stream(`${scheduler.url}/v1/live/campaigns`, TEST_OPERATOR_KEY);
    expect(past.status).toBe(429);
    expect((await past.json()).error.code).toBe(LiveErrorCode.ProcessLimitReached);
    expect(await metric('ums_live_refused_total')).toBe(2);
  });

  it('stops loading a run once its streams close, and keeps its history for the next console', async () => {
    for (const s of open) s.close();
    await waitUntil('every stream closed', async () => (await metric('ums_live_connections')) === 0);
    expect(await metric('ums_live_watched_topics', { topic_kind: 'run' })).toBe(0);
    const runLoads = await metric('ums_live_topic_loads_total', { topic_kind: 'run' });
    // Another topic's frames count the seconds that pass: three of them load the run no more.
    const sentinel = await stream(`${scheduler.url}/v1/live/campaigns`, keyA);
    await waitUntil('three campaign frames', () => sentinel.data('campaigns').length >= 3);
    expect(await metric('ums_live_topic_loads_total', { topic_kind: 'run' })).toBe(runLoads);
    const back = await stream(runUrl(), keyA);
    await waitUntil('the history', () => back.events.length > 0);
    expect(back.data<RunSampleHistory>('history')[0]?.samples.length).toBeGreaterThanOrEqual(5);
    for (const s of [sentinel, back]) s.close();
    await waitUntil('closed', async () => (await metric('ums_live_connections')) === 0);
  });
});

/** A campaign of tenant A with one run (due far ahead, so nothing sends), made through the API. */
async function seedRun(
  url: string,
  key: string,
  ds: DataSource,
): Promise<{ campaignId: string; runId: string; credentialId: string }> {
  const created = async (path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await jsonCall(url, 'POST', path, body, key);
    if (answer.status >= 300) throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
    return answer.body;
  };
  const credential = await created('/v1/credentials', {
    name: 'sim',
    provider: 'simulator',
    channel: 'sms',
    secret: 'live-secret',
    rateCeilingPerSec: 10,
    rateFloorPerSec: 1,
  });
  const campaign = await created('/v1/campaigns', {
    name: 'live',
    channel: 'sms',
    credentialId: credential['id'],
    template: { text: 'Hi' },
    defaultCountry: 'DE',
    schedule: { kind: 'at', at: '2099-01-01T00:00:00Z' },
  });
  const campaignId = String(campaign['id']);
  await created(`/v1/campaigns/${campaignId}/audience/inline`, {
    recipients: [{ address: '+4915100000001' }],
  });
  await created(`/v1/campaigns/${campaignId}/start`);
  const [run] = (await ds.query('SELECT id FROM runs WHERE campaign_id = ?', [campaignId])) as {
    id: string;
  }[];
  if (run === undefined) throw new Error('the campaign has no run');
  return { campaignId, runId: String(run.id), credentialId: String(credential['id']) };
}
