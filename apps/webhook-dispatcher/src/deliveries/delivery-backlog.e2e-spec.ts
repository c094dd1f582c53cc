import { sumMetric, waitUntil } from '@ums/testing';
import { DispatcherFixture, statusEvent } from './test/dispatcher-fixture';

jest.setTimeout(180_000);

const EVENTS = 60;

describe('webhook-dispatcher: a backlogged healthy subscriber (real process)', () => {
  let fixture: DispatcherFixture;

  beforeAll(async () => {
    fixture = await DispatcherFixture.start('webhook_backlog', {
      // Warnings too: a spill that failed or a subscriber tombstoned shows in the test log.
      LOG_LEVEL: 'warn',
      // One request at a time and a lane of 5: a burst of 60 overflows the lane again and again.
      WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIBER: '1',
      WEBHOOK_MAX_QUEUED_PER_SUBSCRIBER: '5',
      WEBHOOK_RETRY_DELAYS_MS: '200,400,800,1600,3200',
      WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
    });
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  async function deliveryRows(
    subscriberId: string,
  ): Promise<{ state: string; attempts: number | string; n: number | string }[]> {
    return (await fixture.ds.query(
      `SELECT state, attempts, COUNT(*) AS n FROM deliveries WHERE subscriber_id = ? GROUP BY state, attempts`,
      [subscriberId],
    )) as { state: string; attempts: number | string; n: number | string }[];
  }

  it('delivers every event of a burst once, each attempted once, none dead-lettered for the backlog alone', async () => {
    const { server, id } = await fixture.subscribe('burst');
    server.mode = { kind: 'ok', delayMs: 50 };
    // No wait: the subscriber is in this replica's directory once its creation is answered.

    await fixture.publishStatuses(
      Array.from({ length: EVENTS }, (_, i) => statusEvent(`burst-${i}`, i, 'burst', 'cmp-burst')),
    );

    await waitUntil('every event delivered', () => server.accepted.length === EVENTS, {
      timeoutMs: 120_000,
      intervalMs: 200,
    }).catch(async (error: unknown) => {
      // What was delivered and where the rest stand, for the failure's message.
      throw new Error(
        `${String(error)}: ${new Set(server.accepted).size} of ${EVENTS} events accepted, rows ` +
          JSON.stringify(await deliveryRows(id)),
      );
    });
    // The subscriber counts a request when it arrives; the dispatcher settles its row once the answer is
    // back (read at once, the last row could still be PENDING). A row left unsettled times out here.
    await waitUntil(
      'every delivery row settled',
      async () => {
        const [row] = (await fixture.ds.query(
          `SELECT COUNT(*) AS n FROM deliveries WHERE subscriber_id = ? AND state <> 'PENDING'`,
          [id],
        )) as { n: number | string }[];
        return Number(row?.n) >= EVENTS;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const rows = await deliveryRows(id);
    const spilled = await sumMetric([fixture.dispatcher.managementUrl], 'ums_webhook_deliveries_total', {
      outcome: 'spilled',
    });
    process.stdout.write(
      `backlog test: ${EVENTS} events, ${spilled} spills to the first tier, rows ${JSON.stringify(rows)}\n`,
    );

    // The lane really overflowed, more than once per event on average.
    expect(spilled).toBeGreaterThan(EVENTS);
    // Each event reached the subscriber once, and each row counts the one attempt made.
    expect(new Set(server.accepted).size).toBe(EVENTS);
    expect(server.invalidSignatures()).toBe(0);
    expect(rows.map((r) => [r.state, Number(r.attempts), Number(r.n)])).toEqual([['DELIVERED', 1, EVENTS]]);
  });
});
