import { SlidingWindowCounter } from './sliding-window-counter';

describe('SlidingWindowCounter', () => {
  it('counts events in (now - window, now] and forgets older ones', () => {
    const w = new SlidingWindowCounter(1000);
    w.add(0, 3);
    w.add(500, 2);
    expect(w.count(999)).toBe(5);
    expect(w.count(1000)).toBe(2); // the events at 0 are exactly one window old: out
    expect(w.count(1499)).toBe(2);
    expect(w.count(1500)).toBe(0);
  });

  it('grants at most the capacity within any window, across fixed-second boundaries', () => {
    const w = new SlidingWindowCounter(1000);
    expect(w.take(900, 50, 50)).toBe(50);
    // A fixed per-second bucket would allow 50 more at 1000; the sliding window does not.
    expect(w.take(1000, 10, 50)).toBe(0);
    expect(w.take(1899, 10, 50)).toBe(0);
    expect(w.take(1900, 60, 50)).toBe(50);
    expect(w.max).toBe(50);
  });

  it('grants part of a bulk request when the window is nearly full', () => {
    const w = new SlidingWindowCounter(1000);
    expect(w.take(0, 30, 50)).toBe(30);
    expect(w.take(10, 1000, 50)).toBe(20);
    expect(w.take(20, 1, 50)).toBe(0);
  });

  it('follows a capacity change at once', () => {
    const w = new SlidingWindowCounter(1000);
    expect(w.take(0, 100, 20)).toBe(20);
    expect(w.take(1, 100, 40)).toBe(20);
    expect(w.count(1)).toBe(40);
  });

  it('keeps the exact busiest window, not the busiest fixed second', () => {
    const w = new SlidingWindowCounter(1000);
    w.add(100, 10);
    w.add(950, 30); // second 0 holds 40
    w.add(1050, 25); // second 1 holds 25; the window (50, 1050] holds 65
    w.add(1200, 5); // (200, 1200] holds 60
    expect(w.max).toBe(65);
  });

  it('matches a brute-force count over a random event stream', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const w = new SlidingWindowCounter(1000);
    const events: number[] = [];
    let now = 0;
    let bruteMax = 0;
    for (let i = 0; i < 5000; i++) {
      now += Math.floor(random() * 5);
      const granted = w.take(now, 1 + Math.floor(random() * 3), 120);
      for (let g = 0; g < granted; g++) events.push(now);
      const inWindow = events.filter((t) => t > now - 1000).length;
      expect(w.count(now)).toBe(inWindow);
      expect(inWindow).toBeLessThanOrEqual(120);
      bruteMax = Math.max(bruteMax, inWindow);
    }
    expect(w.max).toBe(bruteMax);
  });

  it('never lets a clock stepping back reorder or resurrect events', () => {
    const w = new SlidingWindowCounter(1000);
    w.add(5000, 1);
    w.add(4000, 1); // recorded at 5000
    expect(w.count(5999)).toBe(2);
    expect(w.count(6000)).toBe(0);
  });

  it('stays small under millions of events', () => {
    const w = new SlidingWindowCounter(1000);
    for (let t = 0; t < 3_000_000; t++) w.add(Math.floor(t / 10), 1);
    expect(w.count(299_999)).toBe(10_000);
    expect(w.max).toBe(10_000);
  });

  it('reset forgets everything, the busiest window included', () => {
    const w = new SlidingWindowCounter(1000);
    w.add(0, 5);
    w.reset();
    expect(w.count(1)).toBe(0);
    expect(w.max).toBe(0);
  });

  it('refuses a window that is not positive', () => {
    expect(() => new SlidingWindowCounter(0)).toThrow(RangeError);
  });
});
