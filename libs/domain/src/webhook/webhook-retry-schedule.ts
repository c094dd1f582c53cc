/** Where a failed delivery goes next: a retry tier (by index) with its due time, or the dead-letter topic. */
export type WebhookRetryHop =
  | { readonly kind: 'retry'; readonly tier: number; readonly dueAt: number; readonly attempt: number }
  | { readonly kind: 'exhausted'; readonly attempt: number };

/**
 * The hop after `attempt` attempts failed (1 after the first). Attempt n waits on tier n-1; jitter only
 * lengthens a delay (never retried early) and spreads a burst of failures. A Retry-After longer than the
 * tier's delay moves the delivery to the first later tier that waits at least that long (or the last
 * one), so the subscriber's wish is honoured without a topic per value.
 */
export function nextWebhookHop(
  delaysMs: readonly number[],
  attempt: number,
  now: number,
  jitterRatio: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): WebhookRetryHop {
  if (attempt < 1 || attempt > delaysMs.length) return { kind: 'exhausted', attempt };
  let tier = attempt - 1;
  if (retryAfterMs !== undefined && retryAfterMs > 0) {
    while (tier < delaysMs.length - 1 && (delaysMs[tier] ?? 0) < retryAfterMs) tier++;
  }
  const delay = delaysMs[tier] ?? 0;
  const wait = Math.max(delay + Math.floor(delay * jitterRatio * random()), retryAfterMs ?? 0);
  return { kind: 'retry', tier, dueAt: now + wait, attempt };
}
