/** Counts per wall-clock second for the last `seconds` seconds, in fixed arrays (no growth). */
export class PerSecondSeries {
  private readonly second: Float64Array;
  private readonly accepted: Uint32Array;
  private readonly throttled: Uint32Array;
  private readonly rejected: Uint32Array;
  private readonly errors: Uint32Array;

  constructor(readonly seconds = 120) {
    this.second = new Float64Array(seconds).fill(-1);
    this.accepted = new Uint32Array(seconds);
    this.throttled = new Uint32Array(seconds);
    this.rejected = new Uint32Array(seconds);
    this.errors = new Uint32Array(seconds);
  }

  add(nowMs: number, kind: 'accepted' | 'throttled' | 'rejected' | 'errors', n: number): void {
    const sec = Math.floor(nowMs / 1000);
    const slot = sec % this.seconds;
    if (this.second[slot] !== sec) {
      this.second[slot] = sec;
      this.accepted[slot] = 0;
      this.throttled[slot] = 0;
      this.rejected[slot] = 0;
      this.errors[slot] = 0;
    }
    this[kind][slot] = (this[kind][slot] ?? 0) + n;
  }

  /** Oldest first, one entry per second that saw any request. */
  snapshot(
    nowMs: number,
  ): { second: number; accepted: number; throttled: number; rejected: number; errors: number }[] {
    const now = Math.floor(nowMs / 1000);
    const out = [];
    for (let sec = now - this.seconds + 1; sec <= now; sec++) {
      const slot = sec % this.seconds;
      if (this.second[slot] !== sec) continue;
      out.push({
        second: sec,
        accepted: this.accepted[slot] ?? 0,
        throttled: this.throttled[slot] ?? 0,
        rejected: this.rejected[slot] ?? 0,
        errors: this.errors[slot] ?? 0,
      });
    }
    return out;
  }

  reset(): void {
    this.second.fill(-1);
  }
}
