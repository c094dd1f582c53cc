import { AttemptTimeoutError, AttemptWatchdog } from './attempt.watchdog';

describe('AttemptWatchdog', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('aborts an attempt once its deadline passed, with a TIMEOUT error, and never an ended one', () => {
    let now = 1_000;
    const watchdog = new AttemptWatchdog(1_000, () => now);
    const ended = watchdog.start();
    const late = watchdog.start();
    const aborted: unknown[] = [];
    late.once('abort', () => aborted.push(late.reason));
    ended.once('abort', () => aborted.push('ended one aborted'));
    watchdog.end(ended);

    now = 1_999;
    jest.advanceTimersByTime(100);
    expect(late.aborted).toBe(false);

    now = 2_000;
    jest.advanceTimersByTime(100);
    expect(late.aborted).toBe(true);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]).toBeInstanceOf(AttemptTimeoutError);
    expect(aborted[0]).toMatchObject({ code: 'TIMEOUT', message: 'no answer within 1000 ms' });
    expect(ended.aborted).toBe(false);
  });

  it('keeps deadlines in start order and stops its timer when nothing is left', () => {
    let now = 0;
    const watchdog = new AttemptWatchdog(500, () => now);
    const signals = Array.from({ length: 5 }, (_, i) => {
      now = i * 100;
      return watchdog.start();
    });
    now = 650; // deadlines 500..900: the first two are past
    jest.advanceTimersByTime(50);
    expect(signals.map((s) => s.aborted)).toEqual([true, true, false, false, false]);
    for (const signal of signals) watchdog.end(signal);
    jest.advanceTimersByTime(50);
    expect(jest.getTimerCount()).toBe(0);
    watchdog.start();
    expect(jest.getTimerCount()).toBe(1);
    watchdog.stop();
  });
});
