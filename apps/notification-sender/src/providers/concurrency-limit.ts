/**
 * At most `max` tasks at once; the others wait in arrival order. (p-limit, the usual library, is
 * ESM-only since v4 and this workspace compiles to CommonJS.)
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`ConcurrencyLimit needs max >= 1, got ${max}`);
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.max) this.active++;
    // The releasing task hands its slot over directly, so `active` stays counted.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.active--;
      else next();
    }
  }
}
