/**
 * Bounds the messages one process holds claimed (SENDING) at once, whatever the number of batches
 * in flight: a SIGKILL can leave at most this many UNKNOWN. Permits are messages, handed out in
 * arrival order; release gives them back once the claim's outcome is recorded.
 */
export class ClaimBudget {
  private available: number;
  private readonly waiting: { readonly n: number; readonly grant: () => void }[] = [];

  constructor(readonly capacity: number) {
    this.available = capacity;
  }

  async acquire(n: number): Promise<() => void> {
    const permits = Math.min(n, this.capacity);
    if (this.waiting.length === 0 && this.available >= permits) {
      this.available -= permits;
    } else {
      await new Promise<void>((resolve) => this.waiting.push({ n: permits, grant: resolve }));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.available += permits;
      this.drain();
    };
  }

  private drain(): void {
    for (let next = this.waiting[0]; next !== undefined && this.available >= next.n; next = this.waiting[0]) {
      this.waiting.shift();
      this.available -= next.n;
      next.grant();
    }
  }
}
