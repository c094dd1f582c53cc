/**
 * The sender asks the limiter for this fraction less than a credential's ceiling (and its floor no
 * higher than that). Sends granted within the ceiling reach the provider shifted by a few ms each
 * (event loop, GC, connection queues), so a provider counting any 1-second window sees more than was
 * granted in one: measured 212 in the busiest second at 200/s with no headroom, 211 with 3% (a 194/s
 * grant rate: shifts of some tens of ms). Under-sending beats over-sending (seed 003).
 */
export const SEND_RATE_HEADROOM_RATIO = 0.05;

/** Extra random delay on a retry tier, as a fraction of the tier's delay (spreads a burst of retries). */
export const SEND_RETRY_JITTER_RATIO = 0.2;

/**
 * How a grant's slots are moved past the claim (GrantLead in libs/domain): by the 95th percentile of
 * the last 200 slices' delays from grant to ready, at most 400 ms, falling by at most 5% of the time
 * that passes (a send rate at most 1/0.95 of the grants' while it falls, within the headroom above).
 */
export const GRANT_LEAD = Object.freeze({ samples: 200, quantile: 0.95, maxMs: 400, fallPerMs: 0.05 });
