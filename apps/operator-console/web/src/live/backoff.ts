/** The first wait after a dropped stream, and the longest. */
export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 15_000;

/**
 * How long to wait before reconnect attempt `attempt` (0-based): doubling from FIRST_DELAY_MS up to
 * MAX_DELAY_MS, jittered into its upper half so many consoles do not reconnect in step; never less than
 * the server's `retry:` hint.
 */
export function reconnectDelay(
  attempt: number,
  random: () => number = Math.random,
  serverRetryMs = 0,
): number {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, Math.min(attempt, 30)));
  const jittered = Math.round(ceiling / 2 + (ceiling / 2) * Math.min(1, Math.max(0, random())));
  return Math.max(jittered, serverRetryMs);
}
