/** One caller's place in a key's line: `ready` once every earlier turn is released. */
export interface WriteTurn {
  readonly ready: Promise<void>;
  /** Passes the turn on; safe to call more than once, and before `ready` (the line waits for earlier ones). */
  release(): void;
}

/**
 * Lines up one step of concurrent work per key in the order the work started: chunks of a partition
 * are attempted side by side, but each chunk writes its rows only after the chunk before it did, so
 * delivery ids still follow event order within a partition.
 */
export class WriteTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Takes the next turn of `key`; the order of calls is the order of the turns. */
  take(key: string): WriteTurn {
    const ready = this.tails.get(key) ?? Promise.resolve();
    let open: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The next turn waits for this one and, through it, for every earlier one.
    const tail = ready.then(() => released);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return { ready, release: () => open() };
  }

  /** Keys with a turn taken and not yet passed on (for tests and the map's bound). */
  get size(): number {
    return this.tails.size;
  }
}
