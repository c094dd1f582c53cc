export interface TombstonePolicy {
  /** More failures than this within the window tombstone a subscriber (seed 000: 20). */
  readonly threshold: number;
  readonly windowMs: number;
}

/** Past the threshold: the subscriber is marked dead and its events are kept for a resurrect. */
export function shouldTombstone(failuresInWindow: number, policy: TombstonePolicy): boolean {
  return failuresInWindow > policy.threshold;
}

/** Failures older than this score fall out of the sliding window. */
export function windowStart(now: number, policy: TombstonePolicy): number {
  return now - policy.windowMs;
}
