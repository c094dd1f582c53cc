import { DEPENDENCY_BACKOFF_MAX_MS, dependencyBackoffMs, inPlaceBackoffMs } from './dependency-backoff';

describe('dependencyBackoffMs', () => {
  it('doubles from 250 ms and stops at the cap', () => {
    const top = (attempt: number) => dependencyBackoffMs(attempt, 30_000, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(top)).toEqual([
      250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(top(1_000)).toBe(30_000);
  });

  it('jitters within the upper half of each step', () => {
    expect(dependencyBackoffMs(1, 30_000, () => 0)).toBe(125);
    expect(dependencyBackoffMs(3, 30_000, () => 0.5)).toBe(750);
    expect(dependencyBackoffMs(20, 30_000, () => 0)).toBe(15_000);
    for (let attempt = 1; attempt < 40; attempt++) {
      const pause = dependencyBackoffMs(attempt);
      expect(pause).toBeGreaterThanOrEqual(125);
      expect(pause).toBeLessThanOrEqual(DEPENDENCY_BACKOFF_MAX_MS);
    }
  });

  it('takes the cap from the consumer, never below the first step', () => {
    expect(dependencyBackoffMs(10, 2_000, () => 1)).toBe(2_000);
    expect(dependencyBackoffMs(10, 10, () => 1)).toBe(250);
  });
});

describe('inPlaceBackoffMs', () => {
  it('keeps the in-place schedule of 200 ms doubling to 5 s', () => {
    expect([1, 2, 3, 6, 10].map(inPlaceBackoffMs)).toEqual([200, 400, 800, 5_000, 5_000]);
  });
});
