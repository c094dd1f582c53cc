/** What a reservation says about one grant (see the rate limiter's ACQUIRE script). */
export interface GrantTiming {
  readonly granted: number;
  /** The credential's rate (tokens/s) the grant was made at. */
  readonly rate: number;
  /** When the credential's bucket is out of debt again: the slot of the grant's last token, ms from the grant. */
  readonly sharedStartInMs: number;
  /** The tenant's cap (tokens/s), 0 or undefined when none. */
  readonly tenantCapPerSec?: number | null;
  /** The same for the tenant's bucket (0 without a cap). */
  readonly tenantStartInMs: number;
}

/**
 * The slot of each granted token, grouped: tokens whose slots span less than `groupMs` (at most the
 * bucket's depth in ms) go together at their group's last slot, as a bucket that held them back
 * until then could give them at once. Provider requests that carry many messages then go one per
 * group, and any second still sees at most rate x (1 + depth).
 */
export function groupedTokenSlots(grant: GrantTiming, groupMs: number): number[] {
  const slots = tokenSlots(grant);
  let end = slots.length;
  // From the last token backwards: each group takes the slot of its last token.
  while (end > 0) {
    const last = slots[end - 1] as number;
    let start = end - 1;
    while (start > 0 && last - (slots[start - 1] as number) < groupMs) start--;
    for (let i = start; i < end; i++) slots[i] = last;
    end = start;
  }
  return slots;
}

/**
 * The slot of each granted token, in ms from the grant, ascending: a token `k` places before the last
 * one comes `k` tokens' time earlier at each bucket's rate, never before the grant. Sent no earlier
 * than these, the tokens reach the provider as a bucket refilling at the rate would let them, however
 * far ahead they were reserved.
 */
export function tokenSlots(grant: GrantTiming): number[] {
  const { granted, rate, sharedStartInMs, tenantStartInMs } = grant;
  const cap = grant.tenantCapPerSec ?? 0;
  return Array.from({ length: granted }, (_, index) => {
    const before = granted - 1 - index;
    const shared = Math.max(0, sharedStartInMs - (before * 1000) / rate);
    const tenant = cap > 0 ? Math.max(0, tenantStartInMs - (before * 1000) / cap) : 0;
    return Math.ceil(Math.max(shared, tenant));
  });
}
