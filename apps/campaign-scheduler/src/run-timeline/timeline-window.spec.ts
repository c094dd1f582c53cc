import { secondsOfWindow, timelineWindow, windowSeconds } from './timeline-window';

const at = (iso: string): Date => new Date(iso);

describe('timelineWindow', () => {
  it("ends with the second of a finished run's finished_at and starts with its started_at within 15 minutes", () => {
    const window = timelineWindow(
      { startedAt: at('2026-12-01T08:00:00.400Z'), finishedAt: at('2026-12-01T08:02:10.700Z') },
      at('2026-12-01T09:00:00Z'),
    );
    expect(window).toEqual({ from: at('2026-12-01T08:00:00Z'), to: at('2026-12-01T08:02:11Z') });
    expect(windowSeconds(window)).toBe(131);
  });

  it('keeps the last 15 minutes of a longer run', () => {
    const window = timelineWindow(
      { startedAt: at('2026-12-01T07:00:00Z'), finishedAt: at('2026-12-01T08:00:00.250Z') },
      at('2026-12-01T09:00:00Z'),
    );
    expect(window).toEqual({ from: at('2026-12-01T07:45:01Z'), to: at('2026-12-01T08:00:01Z') });
    expect(windowSeconds(window)).toBe(900);
  });

  it('ends with the second in progress while the run goes on', () => {
    const window = timelineWindow(
      { startedAt: at('2026-12-01T08:59:58.900Z'), finishedAt: null },
      at('2026-12-01T09:00:00.100Z'),
    );
    expect(window).toEqual({ from: at('2026-12-01T08:59:58Z'), to: at('2026-12-01T09:00:01Z') });
  });

  it('is empty for a run not started', () => {
    const window = timelineWindow({ startedAt: null, finishedAt: null }, at('2026-12-01T09:00:00.100Z'));
    expect(windowSeconds(window)).toBe(0);
    expect(window.from).toEqual(at('2026-12-01T09:00:01Z'));
  });
});

describe('secondsOfWindow', () => {
  it('lists every second of the window with the counts found, zeros elsewhere', () => {
    const window = { from: at('2026-12-01T08:00:00Z'), to: at('2026-12-01T08:00:03Z') };
    const seconds = secondsOfWindow(window, [
      { stage: 'sent', offset: 0, count: 5 },
      { stage: 'delivered', offset: 2, count: 4 },
      { stage: 'unknown', offset: 2, count: 1 },
      // Outside the window (a row the query should not give): ignored.
      { stage: 'failed', offset: 3, count: 9 },
    ]);
    expect(seconds).toEqual([
      { at: '2026-12-01T08:00:00.000Z', sent: 5, delivered: 0, read: 0, failed: 0, unknown: 0 },
      { at: '2026-12-01T08:00:01.000Z', sent: 0, delivered: 0, read: 0, failed: 0, unknown: 0 },
      { at: '2026-12-01T08:00:02.000Z', sent: 0, delivered: 4, read: 0, failed: 0, unknown: 1 },
    ]);
  });

  it('has no seconds for an empty window', () => {
    const from = at('2026-12-01T08:00:00Z');
    expect(secondsOfWindow({ from, to: from }, [])).toEqual([]);
  });
});
