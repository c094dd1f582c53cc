/** First pause after a dependency failed. */
export const DEPENDENCY_BACKOFF_BASE_MS = 250;
/**
 * Default longest pause between two tries while a dependency is away: work resumes within about two
 * seconds of its return, and a waiting chunk costs its dependency one try per two seconds meanwhile
 * (with a cap of 30 s, sending came back 4-7 s after a Redis restart).
 */
export const DEPENDENCY_BACKOFF_MAX_MS = 2_000;

/**
 * The pause before try `attempt` + 1 while a dependency (MySQL, Redis, Kafka) is unavailable:
 * 250 ms doubling up to `maxMs`, with "equal jitter" (half fixed, half random) so that the
 * consumers of many partitions do not come back as one burst. Never below half the step and
 * never above `maxMs`.
 */
export function dependencyBackoffMs(
  attempt: number,
  maxMs: number = DEPENDENCY_BACKOFF_MAX_MS,
  random: () => number = Math.random,
): number {
  const cap = Math.max(DEPENDENCY_BACKOFF_BASE_MS, maxMs);
  const exponent = Math.min(Math.max(0, attempt - 1), 30);
  const step = Math.min(cap, DEPENDENCY_BACKOFF_BASE_MS * 2 ** exponent);
  return Math.round(step / 2 + (step / 2) * random());
}

/** The pause between in-place attempts of a failed message (not a dependency failure). */
export function inPlaceBackoffMs(attempt: number): number {
  return Math.min(5_000, 200 * 2 ** Math.max(0, attempt - 1));
}
