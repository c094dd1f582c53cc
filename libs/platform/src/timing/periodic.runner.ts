/**
 * Runs a task every `everyMs`, never two runs at once: a tick while one runs is skipped. A failed run
 * goes to `onError` and the next tick tries again. stop() clears the timer and waits for the run in
 * progress, so a shutdown never cuts one short.
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
      this.running ??= this.task()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, everyMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
