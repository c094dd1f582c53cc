import { retryInfrastructure } from './retry-infrastructure';

describe('retryInfrastructure', () => {
  const lost = (): Error => Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });

  /** A clock moved only by the pauses, and a task that fails `failures` times before it succeeds. */
  function setUp(
    failures: number,
    error: () => Error = lost,
  ): {
    task: () => Promise<string>;
    calls: () => number;
    pauses: number[];
    clock: { now: () => number; sleep: (ms: number) => Promise<void> };
  } {
    let calls = 0;
    let time = 0;
    const pauses: number[] = [];
    return {
      task: () => {
        calls += 1;
        return calls <= failures ? Promise.reject(error()) : Promise.resolve('done');
      },
      calls: () => calls,
      pauses,
      clock: {
        now: () => time,
        sleep: (ms) => {
          pauses.push(ms);
          time += ms;
          return Promise.resolve();
        },
      },
    };
  }

  it('retries infrastructure failures with doubling, bounded pauses until the task succeeds', async () => {
    const { task, calls, pauses, clock } = setUp(5);
    const retried: number[] = [];
    await expect(
      retryInfrastructure(task, {
        forMs: 60_000,
        firstDelayMs: 100,
        maxDelayMs: 500,
        onRetry: (_error, attempt) => retried.push(attempt),
        ...clock,
      }),
    ).resolves.toBe('done');
    expect(calls()).toBe(6);
    expect(pauses).toEqual([100, 200, 400, 500, 500]);
    expect(retried).toEqual([1, 2, 3, 4, 5]);
  });

  it('throws any other error at once', async () => {
    const { task, calls, clock } = setUp(3, () => new TypeError('a bug'));
    await expect(retryInfrastructure(task, { forMs: 60_000, ...clock })).rejects.toThrow('a bug');
    expect(calls()).toBe(1);
  });

  it('gives up with the last error once the time is spent, or at once when stopped', async () => {
    const timed = setUp(100);
    await expect(
      retryInfrastructure(timed.task, { forMs: 1_000, firstDelayMs: 100, maxDelayMs: 400, ...timed.clock }),
    ).rejects.toThrow('Connection lost');
    expect(timed.pauses).toEqual([100, 200, 400]);
    const stopped = setUp(100);
    await expect(
      retryInfrastructure(stopped.task, { forMs: 60_000, stopped: () => true, ...stopped.clock }),
    ).rejects.toThrow('Connection lost');
    expect(stopped.calls()).toBe(1);
  });
});
