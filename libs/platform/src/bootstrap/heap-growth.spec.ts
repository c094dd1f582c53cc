import { heapGrowingFlag } from './heap-growth';

describe('heapGrowingFlag', () => {
  it('names the percent, or nothing for V8 own factor', () => {
    expect(heapGrowingFlag(100)).toBe('--heap-growing-percent=100');
    expect(heapGrowingFlag(0)).toBeUndefined();
  });

  it('refuses what is not a whole non-negative percent', () => {
    expect(() => heapGrowingFlag(-1)).toThrow(RangeError);
    expect(() => heapGrowingFlag(1.5)).toThrow(RangeError);
  });
});
