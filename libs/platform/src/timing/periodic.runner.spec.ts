import { PeriodicRunner } from './periodic.runner';

describe('PeriodicRunner', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A task whose runs end only when told to. */
  function controlledTask(): {
    task: () => Promise<void>;
    starts: () => number;
    finish: (error?: Error) => void;
  } {
    let starts = 0;
    let settle: ((error?: Error) => void) | undefined;
    return {
      task: () => {
        starts += 1;
        return new Promise<void>((resolve, reject) => {
          settle = (error) => (error === undefined ? resolve() : reject(error));
        });
      },
      starts: () => starts,
      finish: (error) => settle?.(error),
    };
  }

  it('runs every interval but never two runs at once', async () => {
    const { task, starts, finish } = controlledTask();
    const runner = new PeriodicRunner(task, () => undefined);
    runner.start(100);
    await jest.advanceTimersByTimeAsync(100);
    expect(starts()).toBe(1);
    await jest.advanceTimersByTimeAsync(300); // still running: these ticks are skipped
    expect(starts()).toBe(1);
    finish();
    await jest.advanceTimersByTimeAsync(100);
    expect(starts()).toBe(2);
    finish();
    await runner.stop();
  });

  it('hands a failed run to onError and runs again on the next tick', async () => {
    const { task, starts, finish } = controlledTask();
    const errors: unknown[] = [];
    const runner = new PeriodicRunner(task, (error) => errors.push(error));
    runner.start(100);
    await jest.advanceTimersByTimeAsync(100);
    finish(new Error('boom'));
    await jest.advanceTimersByTimeAsync(100);
    expect(errors).toEqual([new Error('boom')]);
    expect(starts()).toBe(2);
    finish();
    await runner.stop();
  });

  it('stop() waits for the run in progress and starts no more', async () => {
    const { task, starts, finish } = controlledTask();
    const runner = new PeriodicRunner(task, () => undefined);
    runner.start(100);
    await jest.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(500);
    expect(starts()).toBe(1);
  });

  it('contains a task that throws synchronously and an onError that throws', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const runner = new PeriodicRunner(
      () => {
        runs += 1;
        throw new Error('sync');
      },
      (error) => {
        errors.push(error);
        throw new Error('onError failed');
      },
    );
    runner.start(100);
    await jest.advanceTimersByTimeAsync(250);
    expect(runs).toBe(2);
    expect(errors).toEqual([new Error('sync'), new Error('sync')]);
    await expect(runner.stop()).resolves.toBeUndefined();
  });
});
