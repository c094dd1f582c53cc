/**
 * The frames of one live topic taken in the last `windowMs`, oldest first: what a console that starts
 * watching a run is sent at once (`event: history`). Trimmed as frames are added, so it never holds more
 * than one window (at one frame a second, 900 for 15 minutes).
 */
export class FrameHistory<F> {
  private readonly entries: { readonly at: number; readonly frame: F }[] = [];

  constructor(private readonly windowMs: number) {}

  /** Adds the frame taken at `at` (epoch ms) and drops those now older than the window. */
  add(at: number, frame: F): void {
    this.entries.push({ at, frame });
    this.trim(at);
  }

  /** Drops the frames taken at or before `now - windowMs`. */
  trim(now: number): void {
    const oldest = now - this.windowMs;
    let drop = 0;
    while (drop < this.entries.length && (this.entries[drop]?.at ?? Infinity) <= oldest) drop += 1;
    if (drop > 0) this.entries.splice(0, drop);
  }

  frames(): F[] {
    return this.entries.map((entry) => entry.frame);
  }

  get size(): number {
    return this.entries.length;
  }
}
