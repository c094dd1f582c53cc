import { type LoopbackSubscriber, waitUntil } from '@ums/testing';
import { DispatcherFixture, statusEvent } from './test/dispatcher-fixture';

jest.setTimeout(240_000);

const FAILURE_THRESHOLD = 5;

interface SubscriberBody {
  readonly state: string;
  readonly lastSuccessAt: string | null;
  readonly lastFailureAt: string | null;
  readonly lastError: string | null;
}

/**
 * A subscriber resurrected more than once, and the replays' traces on it: each replay sends what it
 * missed and turns it ALIVE, and the deliveries a replay makes stamp its last success as any others do.
 */
describe('webhook-dispatcher: resurrect replays and the subscriber stamps (real process)', () => {
  let fixture: DispatcherFixture;

  beforeAll(async () => {
    fixture = await DispatcherFixture.start('webhook_resurrect', {
      LOG_LEVEL: 'warn',
      WEBHOOK_RETRY_DELAYS_MS: '300,600,1200,2400,4800',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_FAILURE_THRESHOLD: String(FAILURE_THRESHOLD),
      WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
      WEBHOOK_SWEEP_TICK_MS: '500',
      WEBHOOK_PENDING_LEASE_MS: '4000',
    });
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  const view = async (id: string): Promise<SubscriberBody> =>
    (await fixture.api<SubscriberBody>('GET', `/v1/subscribers/${id}`)).body;

  const deliveryStates = async (subscriberId: string): Promise<Record<string, number>> => {
    const rows: { state: string; n: number | string }[] = await fixture.ds.query(
      'SELECT state, COUNT(*) AS n FROM deliveries WHERE subscriber_id = ? GROUP BY state',
      [subscriberId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  };

  const publish = (tenantId: string, ids: readonly string[]): Promise<void> =>
    fixture.publishStatuses(ids.map((eventId, i) => statusEvent(eventId, i, tenantId, `cmp-${tenantId}`)));

  const eventIds = (prefix: string, n: number): string[] =>
    Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

  /**
   * The subscriber fails until it is tombstoned, then misses `later` more events: returns every event
   * it is owed, in publishing order.
   */
  async function outage(
    subscriber: { server: LoopbackSubscriber; id: string },
    tenantId: string,
    prefix: string,
    later: number,
  ): Promise<string[]> {
    subscriber.server.mode = { kind: 'status', status: 503 };
    const failing = eventIds(`${prefix}-a`, FAILURE_THRESHOLD * 3);
    await publish(tenantId, failing);
    await waitUntil('the tombstone', async () => (await view(subscriber.id)).state === 'DEAD', {
      timeoutMs: 60_000,
    });
    const missed = eventIds(`${prefix}-b`, later);
    await publish(tenantId, missed);
    const owed = [...failing, ...missed];
    // Every event of the outage kept for the resurrect (retries in flight at the tombstone included).
    await waitUntil(
      'the outage kept as MISSED',
      async () => (await deliveryStates(subscriber.id))['MISSED'] === owed.length,
      { timeoutMs: 60_000 },
    );
    return owed;
  }

  async function resurrect(id: string): Promise<void> {
    const answer = await fixture.api<SubscriberBody>('POST', `/v1/subscribers/${id}/resurrect`);
    expect(answer.status).toBe(202);
    expect(answer.body.state).toBe('REPLAYING');
    await waitUntil('alive again', async () => (await view(id)).state === 'ALIVE', { timeoutMs: 60_000 });
  }

  it('stamps the failures and successes of replays, and replays and turns ALIVE at a second resurrect too', async () => {
    const subscriber = await fixture.subscribe('twice');
    const { server, id } = subscriber;

    const first = await outage(subscriber, 'twice', 'one', 40);
    const dead = await view(id);
    // It never took a delivery: only failures are stamped.
    expect(dead.lastSuccessAt).toBeNull();
    expect(dead.lastFailureAt).not.toBeNull();

    // Resurrected while it still fails: the replay gives up, its failures are stamped.
    const failing = await fixture.api<SubscriberBody>('POST', `/v1/subscribers/${id}/resurrect`);
    expect(failing.body.state).toBe('REPLAYING');
    const deadAgain = await waitUntil(
      'the replay given up',
      async () => {
        const now = await view(id);
        return now.state === 'DEAD' && now;
      },
      { timeoutMs: 60_000 },
    );
    expect(deadAgain.lastError).toBe('replay stopped: HTTP 503');
    expect(Date.parse(deadAgain.lastFailureAt ?? '')).toBeGreaterThan(Date.parse(dead.lastFailureAt ?? ''));
    expect(deadAgain.lastSuccessAt).toBeNull();

    server.mode = { kind: 'ok' };
    await resurrect(id);
    expect(server.accepted).toEqual(first);
    // Every delivery it has taken came from the replay: they stamp its last success.
    const alive = await view(id);
    expect(alive.lastSuccessAt).not.toBeNull();
    expect(Date.parse(alive.lastSuccessAt ?? '')).toBeGreaterThan(Date.parse(deadAgain.lastFailureAt ?? ''));

    const second = await outage(subscriber, 'twice', 'two', 40);
    server.mode = { kind: 'ok' };
    await resurrect(id);
    expect(server.accepted).toEqual([...first, ...second]);
    expect(await deliveryStates(id)).toEqual({ DELIVERED: first.length + second.length });
    expect(server.invalidSignatures()).toBe(0);
  });

  it('queues a replay by time of a few hundred deliveries, and they are delivered again', async () => {
    const { server, id } = await fixture.subscribe('since');
    const since = new Date(Date.now() - 1_000).toISOString();
    const ids = eventIds('since', 230);
    await publish('since', ids);
    await waitUntil('every event delivered', () => server.acceptedCount === ids.length, {
      timeoutMs: 60_000,
    });
    const requestsBefore = server.received.length;
    const replay = await fixture.api<{ replayed: number }>('POST', `/v1/subscribers/${id}/replay`, { since });
    expect(replay).toEqual({ status: 202, body: { replayed: ids.length } });
    const again = (): Set<string> => new Set(server.received.slice(requestsBefore).map((r) => r.webhookId));
    await waitUntil('every event delivered again', () => again().size === ids.length, { timeoutMs: 60_000 });
    expect([...again()].sort()).toEqual(ids);
    expect((await view(id)).lastSuccessAt).not.toBeNull();
  });
});
