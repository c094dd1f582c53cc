import { createDataSource, MetricsRegistry, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, TcpProxy, testMysqlUserSettings } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { CredentialRateSecondsAccumulator } from './credential-rate-seconds.accumulator';
import { CredentialRateSecondsRepository } from './credential-rate-seconds.repository';
import { CredentialRateSecondsService } from './credential-rate-seconds.service';
import { RateLimitMetrics } from './rate-limit.metrics';

const T0 = Date.UTC(2026, 10, 24, 10, 0, 0);
const A = { credentialId: 'cred-a', tenantId: 't1' };
const B = { credentialId: 'cred-b', tenantId: 't2' };

interface StoredRow {
  credential_id: string;
  second_at: Date;
  tenant_id: string;
  rate: number;
  granted: number;
  accepted: number;
  congested: number;
  errors_5xx: number;
  timeouts: number;
  decreases: number;
}

/** One sender replica's recorder and flusher, on its own clock and connection pool. */
function replica(ds: DataSource, maxSeconds = 60) {
  const clock = { ms: T0 };
  const registry = new MetricsRegistry('notification-sender-test');
  const metrics = new RateLimitMetrics(registry);
  const seconds = new CredentialRateSecondsAccumulator({
    maxSeconds,
    onDropped: (rows) => metrics.secondsDropped.inc(rows),
    now: () => clock.ms,
  });
  const flusher = new CredentialRateSecondsService(
    seconds,
    new CredentialRateSecondsRepository(ds),
    metrics,
    new PinoLogger({ pinoHttp: { level: 'silent' } }),
  );
  const metric = async (name: string): Promise<number> =>
    Number(/ (\d+)$/m.exec(await registry.getSingleMetricAsString(name))?.[1] ?? 0);
  return { clock, seconds, flusher, metric };
}

describe('credential_rate_seconds writes (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('credential_rate_seconds');
    const migrator = await createDataSource(db.settings).initialize();
    await runPendingMigrations(migrator);
    await migrator.destroy();
    // The sender's own account: its grants must cover the upsert.
    ds = await createDataSource(testMysqlUserSettings(db.settings, 'ums_sender')).initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  beforeEach(async () => {
    await ds.query('DELETE FROM credential_rate_seconds');
  });

  async function stored(): Promise<StoredRow[]> {
    return (await ds.query(
      'SELECT * FROM credential_rate_seconds ORDER BY credential_id, second_at',
    )) as StoredRow[];
  }

  it("adds two replicas' figures of one second into one row, the rate being the last one written", async () => {
    const one = replica(ds);
    const two = replica(ds);
    one.seconds.granted(A, 10, 100);
    one.seconds.reported(A, { accepted: 8, congested: 2, errors5xx: 0, timeouts: 0 });
    one.seconds.rate(A, 50, true);
    one.seconds.granted(B, 3, 20);
    two.seconds.granted(A, 5, 100);
    two.seconds.reported(A, { accepted: 4, congested: 0, errors5xx: 1, timeouts: 1 });
    two.seconds.rate(A, 50, true);
    two.seconds.rate(A, 25, true);
    for (const r of [one, two]) r.clock.ms = T0 + 1_000;

    expect(await one.flusher.flush()).toBe(2);
    expect(await two.flusher.flush()).toBe(1);
    // Nothing left: a second flush writes nothing, and no count is added twice.
    expect(await one.flusher.flush()).toBe(0);

    expect(await stored()).toEqual([
      {
        credential_id: 'cred-a',
        second_at: new Date(T0),
        tenant_id: 't1',
        rate: 25,
        granted: 15,
        accepted: 12,
        congested: 2,
        errors_5xx: 1,
        timeouts: 1,
        decreases: 3,
      },
      {
        credential_id: 'cred-b',
        second_at: new Date(T0),
        tenant_id: 't2',
        rate: 20,
        granted: 3,
        accepted: 0,
        congested: 0,
        errors_5xx: 0,
        timeouts: 0,
        decreases: 0,
      },
    ]);
  });

  it('adds up flushes of many seconds from replicas at once, and keeps a known rate over a replica that saw none', async () => {
    const replicas = [replica(ds), replica(ds), replica(ds)];
    for (const [i, r] of replicas.entries()) {
      for (let s = 0; s < 30; s++) {
        r.clock.ms = T0 + s * 1_000;
        // The first replica only hears outcomes: it never saw a rate.
        if (i === 0) r.seconds.reported(A, { accepted: 1, congested: 0, errors5xx: 0, timeouts: 0 });
        else r.seconds.granted(A, 2, 40 + s);
      }
      r.clock.ms = T0 + 30_000;
    }
    const written = await Promise.all(replicas.map((r) => r.flusher.flush()));
    expect(written).toEqual([30, 30, 30]);
    const rows = await stored();
    expect(rows).toHaveLength(30);
    for (const [s, row] of rows.entries()) {
      expect([row.granted, row.accepted, row.rate]).toEqual([4, 1, 40 + s]);
    }
  });

  describe('while MySQL refuses', () => {
    let proxy: TcpProxy;
    let cutDs: DataSource;

    beforeAll(async () => {
      proxy = await TcpProxy.start({ targetHost: db.settings.host, targetPort: db.settings.port });
      const settings = testMysqlUserSettings(db.settings, 'ums_sender');
      cutDs = await createDataSource({ ...settings, host: '127.0.0.1', port: proxy.port }).initialize();
    });

    afterAll(async () => {
      proxy?.restore();
      await cutDs?.destroy();
      await proxy?.stop();
    });

    it('keeps the counts and writes them once MySQL answers again', async () => {
      const r = replica(cutDs);
      r.seconds.granted(A, 10, 100);
      r.seconds.reported(A, { accepted: 9, congested: 1, errors5xx: 0, timeouts: 0 });
      r.clock.ms = T0 + 1_000;
      proxy.cut();

      await expect(r.flusher.flush()).rejects.toThrow();
      expect(await r.flusher.tick(false)).toBe(false);
      expect(await r.metric('ums_rate_limit_seconds_flush_failures_total')).toBe(1);
      expect(r.seconds.pendingSeconds).toBe(1);
      // The next second's figures meanwhile.
      r.seconds.reported(A, { accepted: 0, congested: 0, errors5xx: 0, timeouts: 2 });
      r.clock.ms = T0 + 1_500;
      r.seconds.granted(A, 4, 100);
      r.clock.ms = T0 + 2_000;
      expect(await stored()).toEqual([]);

      proxy.restore();
      expect(await r.flusher.tick(false)).toBe(true);
      const rows = await stored();
      expect(
        rows.map((row) => [row.second_at.getTime() - T0, row.granted, row.accepted, row.congested]),
      ).toEqual([
        [0, 10, 9, 1],
        [1_000, 4, 0, 0],
      ]);
      expect(await r.metric('ums_rate_limit_seconds_dropped_total')).toBe(0);
    });

    it('holds at most the configured seconds, counts the dropped rows, and counts what shutdown could not write', async () => {
      const r = replica(cutDs, 2);
      proxy.cut();
      for (let s = 0; s < 5; s++) {
        r.clock.ms = T0 + s * 1_000;
        r.seconds.granted(A, 1, 10);
        r.seconds.granted(B, 1, 10);
        // Each tick but the first has a second over to write, and fails.
        expect(await r.flusher.tick(false)).toBe(s === 0);
      }
      expect(await r.metric('ums_rate_limit_seconds_flush_failures_total')).toBe(4);
      // Seconds 0..2 went to make room (two credentials each); 3 and 4 are held.
      expect(await r.metric('ums_rate_limit_seconds_dropped_total')).toBe(6);
      expect(r.seconds.pendingSeconds).toBe(2);

      await r.flusher.onApplicationShutdown();
      expect(await r.metric('ums_rate_limit_seconds_dropped_total')).toBe(10);
      expect(r.seconds.pendingSeconds).toBe(0);
      proxy.restore();
      expect(await stored()).toEqual([]);
    });
  });
});
