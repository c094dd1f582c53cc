/** A task taken by the queue (its result, once its turn came and it ran), or refused because the queue is full. */
export type QueueAnswer<T> =
  { readonly taken: true; readonly result: Promise<T> } | { readonly taken: false };

/**
 * Runs tasks one at a time, in the order they were offered. At most `maxWaiting` tasks wait behind the
 * one running; a task offered beyond that is refused at once, so the waiting (and what the callers
 * behind them hold) stays bounded.
 */
export class SerialQueue {
  private running = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly maxWaiting: number) {}

  /** Tasks running or waiting. */
  get size(): number {
    return (this.running ? 1 : 0) + this.waiting.length;
  }

  offer<T>(task: () => Promise<T>): QueueAnswer<T> {
    if (this.running && this.waiting.length >= this.maxWaiting) return { taken: false };
    return { taken: true, result: this.run(task) };
  }

  private async run<T>(task: () => Promise<T>): Promise<T> {
    // Taken synchronously: the next offer sees this task running (or waiting).
    if (this.running) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running = true;
    try {
      return await task();
    } finally {
      this.handOver();
    }
  }

  /** The next waiting task runs; with none, the queue is idle. */
  private handOver(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.running = false;
    else next();
  }
}
