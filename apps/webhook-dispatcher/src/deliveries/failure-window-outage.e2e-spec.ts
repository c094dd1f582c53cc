import { join } from 'node:path';
import { type RedisServerHandle, startRedisServer, sumMetric, testLogDir, waitUntil } from '@ums/testing';
import { DispatcherFixture, statusEvent } from './test/dispatcher-fixture';

jest.setTimeout(180_000);

const THRESHOLD = 5;
const LEASE_MS = 8_000;
const SWEEP_TICK_MS = 200;

/**
 * The failure window (Redis) fails open: with its Redis down, delivered results are still written
 * (so the sweeper resends nothing), failing subscribers are not tombstoned blind, and once Redis is
 * back the failures kept meanwhile are counted and the tombstone is decided.
 */
describe('webhook-dispatcher: failure window with its Redis down (real process, own redis-server)', () => {
  let redis: RedisServerHandle;
  let fixture: DispatcherFixture;

  beforeAll(async () => {
    redis = await startRedisServer({ dir: join(testLogDir(), `redis-window-outage-${process.pid}`) });
    fixture = await DispatcherFixture.start('dispatcher_redis_outage', {
      REDIS_URL: redis.url,
      WEBHOOK_FAILURE_THRESHOLD: String(THRESHOLD),
      WEBHOOK_RETRY_DELAYS_MS: '200,300,400,500,600',
      // Generous: a loaded machine must not turn a slow answer into a retry (a second request).
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
      WEBHOOK_SWEEP_TICK_MS: String(SWEEP_TICK_MS),
      WEBHOOK_PENDING_LEASE_MS: String(LEASE_MS),
    });
  });

  afterAll(async () => {
    await fixture?.stop();
    await redis?.stop();
  });

  const subscriberState = async (id: string): Promise<string | undefined> => {
    const rows: { state: string }[] = await fixture.ds.query('SELECT state FROM subscribers WHERE id = ?', [
      id,
    ]);
    return rows[0]?.state;
  };

  const deliveryStates = async (subscriberId: string): Promise<Record<string, number>> => {
    const rows: { state: string; n: number | string }[] = await fixture.ds.query(
      'SELECT state, COUNT(*) AS n FROM deliveries WHERE subscriber_id = ? GROUP BY state',
      [subscriberId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  };

  it('records deliveries while Redis is down, resends nothing, and tombstones once Redis is back', async () => {
    const good = await fixture.subscribe('window-good');
    const bad = await fixture.subscribe('window-bad');
    bad.server.mode = { kind: 'status', status: 500 };
    await redis.kill();

    // Failures and deliveries in the same write-backs: the failure window's call fails for each.
    const goodIds = Array.from({ length: 60 }, (_, i) => `good-${i}`);
    const badIds = Array.from({ length: 3 }, (_, i) => `bad-${i}`);
    for (let i = 0; i < goodIds.length; i += 10) {
      await fixture.publishStatuses([
        ...goodIds.slice(i, i + 10).map((id, j) => statusEvent(id, i + j, 'window-good', 'cmp-good')),
        ...(i / 10 < badIds.length
          ? [statusEvent(badIds[i / 10] ?? '', i / 10, 'window-bad', 'cmp-bad')]
          : []),
      ]);
    }
    await waitUntil(
      'every good delivery recorded DELIVERED',
      async () => (await deliveryStates(good.id))['DELIVERED'] === goodIds.length,
      { timeoutMs: 60_000, abortIf: fixture.dispatcher.process.exitedUnexpectedly },
    );
    // The bad subscriber fails well past the threshold, but nothing can count it yet.
    await waitUntil('the bad subscriber past the threshold', () => bad.server.requests > 2 * THRESHOLD, {
      timeoutMs: 60_000,
    });
    const windowErrors = await sumMetric(
      [fixture.dispatcher.managementUrl],
      'ums_webhook_failure_window_errors_total',
    );
    expect(windowErrors).toBeGreaterThan(0);
    expect(await subscriberState(bad.id)).toBe('ALIVE');
    // The API's view of the subscriber needs the window: 503 with a code, not 500.
    const view = await fixture.api<{ error: { code: string } }>('GET', `/v1/subscribers/${bad.id}`);
    expect(view.status).toBe(503);
    expect(view.body.error.code).toBe('DEPENDENCY_UNAVAILABLE');
    const ready = await fetch(`${fixture.dispatcher.managementUrl}/health/ready`);
    expect(ready.status).toBe(503);

    // Past the lease, sweeps have had their chance to resend: nothing was resent.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 5 * SWEEP_TICK_MS));
    expect(good.server.accepted).toHaveLength(goodIds.length);
    expect(good.server.received).toHaveLength(goodIds.length);
    expect(await deliveryStates(good.id)).toEqual({ DELIVERED: goodIds.length });

    // The bad subscriber recovers before Redis does: only the failures kept while Redis was down can
    // tombstone it now, and they do once Redis is back (empty, as a restarted cache comes back).
    bad.server.mode = { kind: 'ok' };
    const requestsBefore = bad.server.requests;
    await redis.start();
    await waitUntil('the bad subscriber tombstoned', async () => (await subscriberState(bad.id)) === 'DEAD', {
      timeoutMs: 30_000,
      abortIf: fixture.dispatcher.process.exitedUnexpectedly,
    });
    await waitUntil(
      'ready again',
      async () => (await fetch(`${fixture.dispatcher.managementUrl}/health/ready`)).status === 200,
      { timeoutMs: 30_000 },
    );
    const after = await fixture.api<{ failuresInWindow: number }>('GET', `/v1/subscribers/${bad.id}`);
    expect(after.status).toBe(200);
    expect(after.body.failuresInWindow).toBeGreaterThan(THRESHOLD);
    expect(bad.server.requests).toBeGreaterThanOrEqual(requestsBefore);
    expect(fixture.dispatcher.process.running).toBe(true);
  });
});
