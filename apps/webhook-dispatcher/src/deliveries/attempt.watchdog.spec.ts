import { AttemptTimeoutError, AttemptWatchdog, type TimedAttempt } from './attempt.watchdog';

class Attempt implements TimedAttempt {
  done = false;
  reasons: AttemptTimeoutError[] = [];
  expire(reason: AttemptTimeoutError): void {
    this.done = true;
    this.reasons.push(reason);
  }
}

describe('AttemptWatchdog', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('expires an attempt once its deadline passed, with a TIMEOUT error, and never an ended one', () => {
    let now = 1_000;
    const watchdog = new AttemptWatchdog(1_000, () => now);
    const ended = new Attempt();
    const late = new Attempt();
    watchdog.start(ended);
    watchdog.start(late);
    ended.done = true;

    now = 1_999;
    jest.advanceTimersByTime(100);
    expect(late.reasons).toHaveLength(0);

    now = 2_000;
    jest.advanceTimersByTime(100);
    expect(late.reasons).toHaveLength(1);
    expect(late.reasons[0]).toBeInstanceOf(AttemptTimeoutError);
    expect(late.reasons[0]).toMatchObject({ code: 'TIMEOUT', message: 'no answer within 1000 ms' });
    expect(ended.reasons).toHaveLength(0);
    jest.advanceTimersByTime(1_000);
    expect(late.reasons).toHaveLength(1); // expired once
  });

  it('keeps deadlines in start order and stops its timer when nothing is left', () => {
    let now = 0;
    const watchdog = new AttemptWatchdog(500, () => now);
    const attempts = Array.from({ length: 5 }, (_, i) => {
      now = i * 100;
      const attempt = new Attempt();
      watchdog.start(attempt);
      return attempt;
    });
    now = 650; // deadlines 500..900: the first two are past
    jest.advanceTimersByTime(50);
    expect(attempts.map((a) => a.reasons.length)).toEqual([1, 1, 0, 0, 0]);
    for (const attempt of attempts) attempt.done = true;
    jest.advanceTimersByTime(50);
    expect(jest.getTimerCount()).toBe(0);
    watchdog.start(new Attempt());
    expect(jest.getTimerCount()).toBe(1);
    watchdog.stop();
  });
});
