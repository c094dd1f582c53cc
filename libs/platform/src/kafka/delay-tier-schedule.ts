import type { TopicDefinition } from '@ums/contracts';

/** Where a failed message goes next: a delay tier with its due time, or the dead-letter topic. */
export type NextHop<V extends object> =
  | {
      readonly kind: 'tier';
      readonly topic: TopicDefinition<V>;
      readonly dueAt: number;
      readonly attempt: number;
    }
  | { readonly kind: 'dead-letter'; readonly attempt: number };

/**
 * Chooses the next hop after a failed attempt. `attempt` counts the attempts made so far
 * (1 after the first consumption failed). Jitter spreads a burst of failures (e.g. a provider
 * outage) so their retries do not arrive as one burst again; it only ever lengthens the delay,
 * so no message is retried before its tier's delay.
 */
export function nextHop<V extends object>(
  tiers: readonly TopicDefinition<V>[],
  attempt: number,
  now: number,
  jitterRatio: number,
  random: () => number = Math.random,
): NextHop<V> {
  const tier = tiers[attempt - 1];
  if (tier === undefined) return { kind: 'dead-letter', attempt };
  const delay = tier.delayMs;
  if (delay === undefined) throw new Error(`Topic ${tier.name} is not a delay tier (no delayMs)`);
  const jitter = Math.floor(delay * jitterRatio * random());
  return { kind: 'tier', topic: tier, dueAt: now + delay + jitter, attempt };
}

/** Parses the due-at header; a missing or malformed one means "due now" rather than stuck forever. */
export function parseDueAt(header: string | undefined): number {
  if (header === undefined) return 0;
  const value = Number(header);
  return Number.isFinite(value) && value > 0 ? value : 0;
}
