import type { DeliveryKeyRow } from './deliveries.repository';
import type { DeliveryJob } from './delivery.record';
import type { FinishedAttempt } from './delivery-dispatcher.service';
import { EarlyAttempts } from './early-attempts.collector';

const job = (eventId: string): DeliveryJob => ({
  deliveryId: '',
  subscriberId: 'sub_1',
  eventId,
  eventType: 'message.status',
  payload: '{}',
  attempt: 1,
  firstAttemptAt: '2026-11-24T00:00:00.000Z',
});
const delivered = (j: DeliveryJob): FinishedAttempt => ({
  job: j,
  kind: 'attempted',
  result: { kind: 'delivered', status: 204 },
});
const failed = (j: DeliveryJob): FinishedAttempt => ({
  job: j,
  kind: 'attempted',
  result: { kind: 'failed', error: 'HTTP 500', status: 500 },
});
const row = (j: DeliveryJob, id: string, state: DeliveryKeyRow['state'], attempts = 0): DeliveryKeyRow => ({
  id,
  subscriberId: j.subscriberId,
  eventId: j.eventId,
  state,
  attempts,
  createdAt: new Date('2026-11-24T00:00:01.000Z'),
});

describe('EarlyAttempts', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits for the jobs it is told to, or for the grace, whichever comes first', async () => {
    const early = new EarlyAttempts(() => undefined);
    const [a, b, slow] = [job('a'), job('b'), job('slow')];
    let resolved = false;
    void early.settled([a, b], 1_000).then(() => (resolved = true));
    early.sink(delivered(a));
    await Promise.resolve();
    expect(resolved).toBe(false);
    early.sink(delivered(b));
    await Promise.resolve();
    expect(resolved).toBe(true); // `slow` was not waited for

    const other = new EarlyAttempts(() => undefined);
    let graceOver = false;
    void other.settled([slow], 1_000).then(() => (graceOver = true));
    jest.advanceTimersByTime(999);
    await Promise.resolve();
    expect(graceOver).toBe(false);
    jest.advanceTimersByTime(1);
    await Promise.resolve();
    expect(graceOver).toBe(true);
  });

  it('returns the delivered attempts at close, and hands every other result over once its row is adopted', () => {
    const handed: FinishedAttempt[] = [];
    const early = new EarlyAttempts((finished) => handed.push(finished));
    const [ok, bad, late, redelivered, lateOk] = ['ok', 'bad', 'late', 'redelivered', 'late-ok'].map(job) as [
      DeliveryJob,
      DeliveryJob,
      DeliveryJob,
      DeliveryJob,
      DeliveryJob,
    ];
    early.sink(delivered(ok));
    early.sink(failed(bad));
    early.sink(failed(redelivered));
    expect([...early.close()]).toEqual([[ok, 204]]);
    // Finished after the close, before the rows are read back: kept until adopted.
    early.sink(delivered(lateOk));
    expect(handed).toHaveLength(0);
    early.adopt(
      new Map([
        [bad, row(bad, '11', 'PENDING')],
        [late, row(late, '12', 'PENDING', 2)],
        // A redelivered event: its row is settled already, another attempt's business.
        [redelivered, row(redelivered, '13', 'DELIVERED', 1)],
        [lateOk, row(lateOk, '14', 'PENDING')],
      ]),
    );
    expect(handed.map((f) => [f.job.eventId, f.job.deliveryId, f.job.attempt])).toEqual([
      ['bad', '11', 1],
      ['late-ok', '14', 1],
    ]);
    expect(handed[0]?.job.firstAttemptAt).toBe('2026-11-24T00:00:01.000Z');
    // Finished after adoption: handed over at once, with its row's id and attempt number.
    early.sink(failed(late));
    expect(handed.map((f) => [f.job.eventId, f.job.deliveryId, f.job.attempt])).toContainEqual([
      'late',
      '12',
      3,
    ]);
    early.sink(failed(job('unknown')));
    expect(handed).toHaveLength(3);
  });
});
