/** A response time distribution given by its floor, median and 99th percentile, in ms. */
export interface LatencyProfile {
  readonly minMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** z-score of the 99th percentile of the standard normal distribution. */
const Z99 = 2.3263478740408408;
/** Samples beyond this multiple of p99 are cut: a simulator has no use for minute-long tails. */
export const LATENCY_TAIL_CAP = 10;

/** Why a profile cannot be sampled, or undefined when it can. */
export function latencyProfileProblem(profile: LatencyProfile): string | undefined {
  const { minMs, p50Ms, p99Ms } = profile;
  if (![minMs, p50Ms, p99Ms].every((v) => Number.isFinite(v) && v >= 0)) {
    return 'minMs, p50Ms and p99Ms must be finite and not negative';
  }
  if (p50Ms > p99Ms) return 'p50Ms must not exceed p99Ms';
  if (minMs > p50Ms && p50Ms > 0) return 'minMs must not exceed p50Ms';
  return undefined;
}

/**
 * One response time from a log-normal distribution whose median is p50Ms and whose 99th
 * percentile is p99Ms (sigma = ln(p99/p50) / z99), floored at minMs and capped at
 * LATENCY_TAIL_CAP x p99Ms. `random` returns uniform numbers in [0, 1), e.g. Math.random.
 */
export function sampleLatencyMs(profile: LatencyProfile, random: () => number): number {
  const { minMs, p50Ms, p99Ms } = profile;
  if (p50Ms <= 0) return minMs;
  const sigma = p99Ms > p50Ms ? Math.log(p99Ms / p50Ms) / Z99 : 0;
  const sample = sigma === 0 ? p50Ms : p50Ms * Math.exp(sigma * standardNormal(random));
  return Math.min(Math.max(sample, minMs), Math.max(p99Ms, minMs) * LATENCY_TAIL_CAP);
}

/** Box-Muller: a standard normal sample from two uniform ones. */
function standardNormal(random: () => number): number {
  const u1 = 1 - random(); // (0, 1]: log(0) would be -Infinity
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
