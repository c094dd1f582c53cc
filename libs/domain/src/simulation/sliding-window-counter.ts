/**
 * Counts events in a sliding time window, (now - windowMs, now], exactly to the millisecond. It is
 * both the simulator's capacity limiter (take) and its measure of the busiest second (max):
 * the largest count of any window is reached at a window ending on an event, and every event
 * updates the maximum, so `max` is exact rather than sampled per fixed second.
 *
 * Memory: one (time, count) entry per distinct millisecond inside the window, so at most
 * windowMs entries however many events arrive.
 */
export class SlidingWindowCounter {
  private times: number[] = [];
  private counts: number[] = [];
  private head = 0;
  private total = 0;
  private busiest = 0;
  private latest = -Infinity;

  constructor(readonly windowMs = 1000) {
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
  }

  /** Events inside the window ending at `now`. */
  count(now: number): number {
    this.evict(this.clamp(now));
    return this.total;
  }

  /** The highest count any window held so far. */
  get max(): number {
    return this.busiest;
  }

  /** Records `n` events at `now`. */
  add(now: number, n = 1): void {
    if (n <= 0) return;
    const at = this.clamp(now);
    this.evict(at);
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === at) {
      this.counts[last] = (this.counts[last] ?? 0) + n;
    } else {
      this.times.push(at);
      this.counts.push(n);
    }
    this.total += n;
    if (this.total > this.busiest) this.busiest = this.total;
    this.latest = at;
  }

  /**
   * Takes up to `wanted` events within `capacity` per window and records them; returns how many
   * were granted (0 when the window is full).
   */
  take(now: number, wanted: number, capacity: number): number {
    const at = this.clamp(now);
    this.evict(at);
    const granted = Math.max(0, Math.min(wanted, Math.floor(capacity) - this.total));
    if (granted > 0) this.add(at, granted);
    return granted;
  }

  reset(): void {
    this.times = [];
    this.counts = [];
    this.head = 0;
    this.total = 0;
    this.busiest = 0;
    this.latest = -Infinity;
  }

  // A clock that steps back must not reorder the entries: time never runs backwards here.
  private clamp(now: number): number {
    return now < this.latest ? this.latest : now;
  }

  private evict(now: number): void {
    const edge = now - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? Infinity) <= edge) {
      this.total -= this.counts[this.head] ?? 0;
      this.head++;
    }
    // Drop consumed entries now and then rather than shifting on every eviction.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
  }
}
