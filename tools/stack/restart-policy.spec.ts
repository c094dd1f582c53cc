import { crashed, RestartBackoff, restartLine } from './restart-policy';

describe('restart policy', () => {
  it('doubles the delay for restarts in a row, bounded, and starts over after a long run', () => {
    const backoff = new RestartBackoff({ initialDelayMs: 1_000, maxDelayMs: 8_000, resetAfterMs: 60_000 });
    expect([1, 2, 3, 4, 5].map(() => backoff.next(500).delayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 8_000]);
    expect(backoff.next(60_000)).toEqual({ restart: 1, delayMs: 1_000 });
    expect(backoff.next(10)).toEqual({ restart: 2, delayMs: 2_000 });
  });

  it('restarts crashes and kills, not a clean exit', () => {
    expect(crashed({ code: 1, signal: null })).toBe(true);
    expect(crashed({ code: null, signal: 'SIGKILL' })).toBe(true);
    expect(crashed({ code: 0, signal: null })).toBe(false);
  });

  it('names the service, how it ended and the restart count', () => {
    expect(
      restartLine('notification-sender', { code: 1, signal: null }, { restart: 2, delayMs: 2_000, total: 3 }),
    ).toBe('notification-sender died (exit code 1): restarting in 2 s (restart 3, 2 in a row)');
    expect(
      restartLine(
        'webhook-ingest',
        { code: null, signal: 'SIGKILL' },
        { restart: 1, delayMs: 1_000, total: 1 },
      ),
    ).toBe('webhook-ingest died (signal SIGKILL): restarting in 1 s (restart 1, 1 in a row)');
  });
});
