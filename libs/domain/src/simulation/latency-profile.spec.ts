import { LATENCY_TAIL_CAP, latencyProfileProblem, sampleLatencyMs } from './latency-profile';

/** mulberry32: a small seeded generator, so the statistics below are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

describe('sampleLatencyMs', () => {
  it('has the configured median and 99th percentile, within sampling error', () => {
    const random = seeded(42);
    const profile = { minMs: 0, p50Ms: 20, p99Ms: 200 };
    const samples = Array.from({ length: 200_000 }, () => sampleLatencyMs(profile, random)).sort(
      (a, b) => a - b,
    );
    expect(quantile(samples, 0.5)).toBeGreaterThan(19);
    expect(quantile(samples, 0.5)).toBeLessThan(21);
    expect(quantile(samples, 0.99)).toBeGreaterThan(185);
    expect(quantile(samples, 0.99)).toBeLessThan(215);
  });

  it('never goes below the floor nor above the tail cap, even at the extremes of the generator', () => {
    const profile = { minMs: 5, p50Ms: 10, p99Ms: 100 };
    const extremes = [0, 1e-12, 0.5, 1 - 1e-12, 0.999999];
    for (const u1 of extremes) {
      for (const u2 of extremes) {
        const values = [u1, u2];
        const v = sampleLatencyMs(profile, () => values.shift() ?? 0.5);
        expect(v).toBeGreaterThanOrEqual(5);
        expect(v).toBeLessThanOrEqual(100 * LATENCY_TAIL_CAP);
        expect(Number.isFinite(v)).toBe(true);
      }
    }
    const random = seeded(1);
    let lowest = Infinity;
    let highest = -Infinity;
    for (let i = 0; i < 100_000; i++) {
      const v = sampleLatencyMs(profile, random);
      lowest = Math.min(lowest, v);
      highest = Math.max(highest, v);
    }
    expect(lowest).toBeGreaterThanOrEqual(5);
    expect(highest).toBeLessThanOrEqual(1000);
  });

  it('is constant when p99 equals p50, and the floor when the median is zero', () => {
    expect(sampleLatencyMs({ minMs: 0, p50Ms: 7, p99Ms: 7 }, Math.random)).toBe(7);
    expect(sampleLatencyMs({ minMs: 3, p50Ms: 0, p99Ms: 0 }, Math.random)).toBe(3);
    expect(sampleLatencyMs({ minMs: 0, p50Ms: 0, p99Ms: 0 }, Math.random)).toBe(0);
  });
});

describe('latencyProfileProblem', () => {
  it.each([
    [{ minMs: 0, p50Ms: 0, p99Ms: 0 }, undefined],
    [{ minMs: 1, p50Ms: 10, p99Ms: 100 }, undefined],
    [{ minMs: 5, p50Ms: 0, p99Ms: 0 }, undefined],
    [{ minMs: 0, p50Ms: 50, p99Ms: 10 }, 'p50Ms must not exceed p99Ms'],
    [{ minMs: 20, p50Ms: 10, p99Ms: 100 }, 'minMs must not exceed p50Ms'],
    [{ minMs: -1, p50Ms: 10, p99Ms: 100 }, 'minMs, p50Ms and p99Ms must be finite and not negative'],
  ])('%j -> %s', (profile, problem) => {
    expect(latencyProfileProblem(profile)).toBe(problem);
  });
});
