/** How many recent answers the estimate keeps: enough to find a quick one, few enough to follow a clock step. */
const CLOCK_SAMPLES = 32;

/**
 * Maps Redis server time (TIME, whole ms) to this process's `performance.now()`. Each answer bounds
 * the difference from above (it arrives after Redis decided); the smallest of the recent ones is the
 * closest, and only recent ones count, so a clock that steps or drifts is followed within a few calls.
 */
export class ServerClock {
  private readonly samples: number[] = [];
  private next = 0;

  /** The local time at which Redis stood at `serverTimeMs`, given that its answer arrived `now`. */
  toLocal(serverTimeMs: number, now: number = performance.now()): number {
    const sample = now - serverTimeMs;
    if (this.samples.length < CLOCK_SAMPLES) this.samples.push(sample);
    else this.samples[this.next] = sample;
    this.next = (this.next + 1) % CLOCK_SAMPLES;
    // Never after `now`: this answer's own sample is among them. Whole ms from Redis: the decision
    // may have been up to 1 ms after serverTimeMs.
    return serverTimeMs + Math.min(...this.samples);
  }
}
