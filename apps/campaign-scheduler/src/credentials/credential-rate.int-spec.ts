import { randomBytes } from 'node:crypto';
import {
  AllTopics,
  AuthErrorCode,
  CredentialErrorCode,
  type CredentialRateView,
  HttpErrorCode,
  Scope,
  TENANT_HEADER,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

const HOUR_S = 3_600;

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[] };
}

/**
 * GET /v1/credentials/{id}/rate of the real service (built from dist/) over rows of
 * credential_rate_seconds written as notification-sender writes them, and the sweeper's retention.
 */
describe('credential rate API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let keyA: string;
  let keyB: string;
  let keyWithoutScope: string;

  beforeAll(async () => {
    database = await createTestDatabase('ums_credential_rate');
    ds = await createDataSource(database.settings).initialize();
    await runPendingMigrations(ds);
    for (const [id, tenant] of [
      ['cred-a', 'tenant-a'],
      ['cred-idle', 'tenant-a'],
      ['cred-b', 'tenant-b'],
    ]) {
      await ds.query(
        `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
         VALUES (?, ?, 'sim', 'simulator', 'sms', '{}', 100, 5)`,
        [id, tenant],
      );
    }
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(database.settings.database, namespace),
        CREDENTIAL_RATE_RETENTION_MS: String(48 * HOUR_S * 1000),
        CREDENTIAL_RATE_PRUNE_TICK_MS: '1000',
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

  /** A row `secondsAgo` seconds before the database's current second. */
  async function second(
    credentialId: string,
    tenantId: string,
    secondsAgo: number,
    figures: { rate: number; granted?: number; congested?: number; decreases?: number },
  ): Promise<void> {
    await ds.query(
      `INSERT INTO credential_rate_seconds
         (credential_id, second_at, tenant_id, rate, granted, accepted, congested, errors_5xx, timeouts, decreases)
       VALUES (?, UTC_TIMESTAMP() - INTERVAL ? SECOND, ?, ?, ?, ?, ?, 0, 0, ?)`,
      [
        credentialId,
        secondsAgo,
        tenantId,
        figures.rate,
        figures.granted ?? 0,
        figures.granted ?? 0,
        figures.congested ?? 0,
        figures.decreases ?? 0,
      ],
    );
  }

  async function get(path: string, key: string, tenant?: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${service.url}${path}`, {
      headers: { ...bearer(key), ...(tenant === undefined ? {} : { [TENANT_HEADER]: tenant }) },
    });
    return { status: response.status, body: await response.json() };
  }

  it('answers the complete seconds asked for oldest first, the newest rate and the congestion events', async () => {
    // 20 s, 2 and 4 minutes ago; 6 minutes ago (outside 300 s); congestion 30 min to 23 h ago; 30 h ago.
    await second('cred-a', 'tenant-a', 20, { rate: 40, granted: 40 });
    await second('cred-a', 'tenant-a', 120, { rate: 80, granted: 75, congested: 5, decreases: 1 });
    await second('cred-a', 'tenant-a', 240, { rate: 100, granted: 100 });
    await second('cred-a', 'tenant-a', 360, { rate: 100, granted: 90 });
    for (let i = 0; i < 55; i++) {
      await second('cred-a', 'tenant-a', 1_800 + i * 1_500, { rate: 50, congested: i + 1, decreases: 1 });
    }
    await second('cred-a', 'tenant-a', 30 * HOUR_S, { rate: 60, congested: 9, decreases: 2 });
    await second('cred-b', 'tenant-b', 20, { rate: 7, granted: 7, decreases: 1 });

    const answer = await get('/v1/credentials/cred-a/rate', keyA);
    expect(answer.status).toBe(200);
    const view = answer.body as CredentialRateView;
    expect(Object.keys(view).sort()).toEqual(
      [
        'congestionEvents',
        'credentialId',
        'current',
        'rateCeilingPerSec',
        'rateFloorPerSec',
        'series',
      ].sort(),
    );
    expect(view).toMatchObject({ credentialId: 'cred-a', rateCeilingPerSec: 100, rateFloorPerSec: 5 });
    expect(view.series.map((s) => [s.rate, s.granted, s.accepted, s.congested, s.decreases])).toEqual([
      [100, 100, 100, 0, 0],
      [80, 75, 75, 5, 1],
      [40, 40, 40, 0, 0],
    ]);
    expect(view.series[0]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      rate: 100,
      granted: 100,
      accepted: 100,
      congested: 0,
      errors5xx: 0,
      timeouts: 0,
      decreases: 0,
    });
    expect(view.current).toEqual({ rate: 40, at: view.series[2]?.at });

    // Newest first, at most 50, within 24 hours: the one 2 minutes ago, then 49 of the 55.
    expect(view.congestionEvents).toHaveLength(50);
    expect(view.congestionEvents[0]).toEqual({
      at: view.series[1]?.at,
      rate: 80,
      congested: 5,
      errors5xx: 0,
      timeouts: 0,
      decreases: 1,
    });
    expect(view.congestionEvents.slice(1).map((e) => e.congested)).toEqual(
      Array.from({ length: 49 }, (_, i) => i + 1),
    );
    const times = view.congestionEvents.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const shorter = (await get('/v1/credentials/cred-a/rate?seconds=60', keyA)).body as CredentialRateView;
    expect(shorter.series.map((s) => s.rate)).toEqual([40]);
  });

  it('answers an unused credential with an empty series and no current rate', async () => {
    const answer = await get('/v1/credentials/cred-idle/rate', keyA);
    expect(answer).toEqual({
      status: 200,
      body: {
        credentialId: 'cred-idle',
        rateCeilingPerSec: 100,
        rateFloorPerSec: 5,
        current: null,
        series: [],
        congestionEvents: [],
      },
    });
  });

  it("answers another tenant's credential 404 like a missing one; the operator reads any", async () => {
    for (const path of ['/v1/credentials/cred-b/rate', '/v1/credentials/cred-none/rate']) {
      const answer = await get(path, keyA);
      expect(answer.status).toBe(404);
      expect((answer.body as ErrorBody).error.code).toBe(CredentialErrorCode.NotFound);
    }
    expect((await get('/v1/credentials/cred-b/rate', keyB)).status).toBe(200);
    const operator = await get('/v1/credentials/cred-b/rate', TEST_OPERATOR_KEY);
    expect(operator.status).toBe(200);
    expect((operator.body as CredentialRateView).series.map((s) => s.rate)).toEqual([7]);
    // An operator acting for one tenant sees that tenant's credentials only.
    expect((await get('/v1/credentials/cred-b/rate', TEST_OPERATOR_KEY, 'tenant-a')).status).toBe(404);
  });

  it('refuses a seconds value out of 1..3600 or not an integer, naming the field', async () => {
    for (const seconds of ['0', '3601', 'abc', '1.5']) {
      const answer = await get(`/v1/credentials/cred-a/rate?seconds=${seconds}`, keyA);
      expect(answer.status).toBe(400);
      const { error } = answer.body as ErrorBody;
      expect(error.code).toBe(HttpErrorCode.ValidationFailed);
      // One entry per rule the value breaks, each naming the field.
      expect(error.fields?.length).toBeGreaterThan(0);
      expect(new Set(error.fields?.map((f) => f.field))).toEqual(new Set(['seconds']));
      expect(error.message).toContain('seconds');
    }
    expect((await get('/v1/credentials/cred-a/rate?seconds=3600', keyA)).status).toBe(200);
  });

  it('needs the credentials:read scope', async () => {
    const answer = await get('/v1/credentials/cred-a/rate', keyWithoutScope);
    expect(answer.status).toBe(403);
    expect((answer.body as ErrorBody).error.code).toBe(AuthErrorCode.ScopeMissing);
  });

  it('deletes rows past CREDENTIAL_RATE_RETENTION_MS and keeps younger ones', async () => {
    await second('cred-idle', 'tenant-a', 50 * HOUR_S, { rate: 10 });
    await second('cred-idle', 'tenant-a', 47 * HOUR_S, { rate: 10 });
    const left = async (): Promise<number> => {
      const [row] = (await ds.query(
        `SELECT COUNT(*) AS n FROM credential_rate_seconds WHERE credential_id = 'cred-idle'`,
      )) as { n: string }[];
      return Number(row?.n);
    };
    await waitUntil('the sweeper to delete the row 50 hours old', async () => (await left()) === 1, {
      timeoutMs: 15_000,
    });
    // The 30-hour-old congestion row of cred-a is within the retention: kept, yet not an event.
    const [kept] = (await ds.query(
      `SELECT COUNT(*) AS n FROM credential_rate_seconds WHERE credential_id = 'cred-a' AND decreases = 2`,
    )) as { n: string }[];
    expect(Number(kept?.n)).toBe(1);
  });
});
