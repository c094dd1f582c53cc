import { shouldTombstone, windowStart } from './tombstone-policy';

describe('tombstone policy', () => {
  const policy = { threshold: 20, windowMs: 86_400_000 };

  it('tombstones only past the threshold', () => {
    expect(shouldTombstone(0, policy)).toBe(false);
    expect(shouldTombstone(20, policy)).toBe(false);
    expect(shouldTombstone(21, policy)).toBe(true);
  });

  it('slides the window back from now', () => {
    expect(windowStart(100_000_000, policy)).toBe(13_600_000);
  });
});
