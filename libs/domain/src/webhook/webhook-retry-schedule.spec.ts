import { nextWebhookHop } from './webhook-retry-schedule';

const DELAYS = [5_000, 30_000, 120_000, 600_000, 3_600_000];

describe('nextWebhookHop', () => {
  it('sends attempt n to tier n-1 with its delay, and past the last tier to the dead letters', () => {
    DELAYS.forEach((delay, i) => {
      expect(nextWebhookHop(DELAYS, i + 1, 1_000, 0)).toEqual({
        kind: 'retry',
        tier: i,
        dueAt: 1_000 + delay,
        attempt: i + 1,
      });
    });
    expect(nextWebhookHop(DELAYS, 6, 1_000, 0)).toEqual({ kind: 'exhausted', attempt: 6 });
    expect(nextWebhookHop(DELAYS, 0, 1_000, 0)).toEqual({ kind: 'exhausted', attempt: 0 });
  });

  it('only lengthens delays with jitter, within the ratio', () => {
    expect(nextWebhookHop(DELAYS, 2, 0, 0.2, undefined, () => 0.999)).toMatchObject({ dueAt: 35_994 });
    expect(nextWebhookHop(DELAYS, 2, 0, 0.2, undefined, () => 0)).toMatchObject({ dueAt: 30_000 });
  });

  it('honours Retry-After: waits at least that long, on the first tier long enough', () => {
    expect(nextWebhookHop(DELAYS, 1, 0, 0, 60_000)).toEqual({
      kind: 'retry',
      tier: 2,
      dueAt: 120_000,
      attempt: 1,
    });
    expect(nextWebhookHop(DELAYS, 1, 0, 0, 2_000)).toEqual({
      kind: 'retry',
      tier: 0,
      dueAt: 5_000,
      attempt: 1,
    });
    // Longer than every tier: the last tier, held until the subscriber's time.
    expect(nextWebhookHop(DELAYS, 1, 0, 0, 7_200_000)).toEqual({
      kind: 'retry',
      tier: 4,
      dueAt: 7_200_000,
      attempt: 1,
    });
  });
});
