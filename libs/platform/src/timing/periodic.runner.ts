/**
 * Runs a task every `everyMs`, never two runs at once: a tick while one runs is skipped. A failed run
 * (a lost database connection, say) goes to `onError` and the next tick tries again; a task that
 * throws synchronously, or an `onError` that throws, is contained the same way, so no run ever
 * leaves a rejected promise behind. stop() clears the timer and waits for the run in progress, so a
 * shutdown never cuts one short.
 */
export class PeriodicRunner {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(everyMs: number): void {
    this.timer = setInterval(() => {
      this.running ??= Promise.resolve()
        .then(this.task)
        .then(
          () => undefined,
          (error: unknown) => this.report(error),
        )
        .finally(() => {
          this.running = undefined;
        });
    }, everyMs);
  }

  private report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // onError is the place failures go; if it fails too there is nowhere left to report to.
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
