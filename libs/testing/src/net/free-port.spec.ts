import { workerSlice } from './free-port';

describe('workerSlice', () => {
  it('gives each Jest worker a slice of its own, and the whole range outside Jest', () => {
    const range = [10_000, 32_767] as const;
    expect(workerSlice(range, undefined)).toEqual(range);
    expect(workerSlice(range, '0')).toEqual(range);
    const slices = ['1', '2', '3', '8'].map((id) => workerSlice(range, id));
    expect(slices[0]).toEqual([10_000, 12_845]);
    expect(slices[1]).toEqual([12_846, 15_691]);
    for (const [low, high] of slices) {
      expect(low).toBeGreaterThanOrEqual(range[0]);
      expect(high).toBeLessThanOrEqual(range[1]);
    }
    const overlaps = slices.some(([low, high], i) =>
      slices.some(([otherLow, otherHigh], j) => i !== j && low <= otherHigh && otherLow <= high),
    );
    expect(overlaps).toBe(false);
    expect(workerSlice(range, '9')).toEqual(slices[0]);
  });
});
