import { FIRST_DELAY_MS, MAX_DELAY_MS, reconnectDelay } from './backoff';

describe('reconnectDelay', () => {
  it('doubles from the first delay up to the cap', () => {
    const top = (): number => 1;
    expect([0, 1, 2, 3].map((attempt) => reconnectDelay(attempt, top))).toEqual([
      FIRST_DELAY_MS,
      FIRST_DELAY_MS * 2,
      FIRST_DELAY_MS * 4,
      FIRST_DELAY_MS * 8,
    ]);
    expect(reconnectDelay(50, top)).toBe(MAX_DELAY_MS);
  });

  it('jitters within the upper half', () => {
    expect(reconnectDelay(2, () => 0)).toBe(FIRST_DELAY_MS * 2);
    expect(reconnectDelay(2, () => 0.5)).toBe(FIRST_DELAY_MS * 3);
  });

  it('never waits less than the server asks', () => {
    expect(reconnectDelay(0, () => 0, 3000)).toBe(3000);
  });
});
