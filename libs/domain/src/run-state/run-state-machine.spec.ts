import { RunState as S } from '@ums/contracts';
import { isFinished, RunEvent as E, transitionRun } from './run-state-machine';

// Every allowed transition, listed independently of the implementation's table.
const ALLOWED: ReadonlyArray<readonly [S, E, S]> = [
  [S.Pending, E.Schedule, S.Scheduled],
  [S.Pending, E.Start, S.Running],
  [S.Pending, E.Cancel, S.Stopped],
  [S.Scheduled, E.Start, S.Running],
  [S.Scheduled, E.Pause, S.Paused],
  [S.Scheduled, E.Cancel, S.Stopped],
  [S.Scheduled, E.Fail, S.Failed],
  [S.Running, E.Pause, S.Paused],
  [S.Running, E.Stop, S.Stopped],
  [S.Running, E.Complete, S.Completed],
  [S.Running, E.Fail, S.Failed],
  [S.Running, E.RetryStale, S.Running],
  [S.Paused, E.Resume, S.Running],
  [S.Paused, E.Stop, S.Stopped],
  [S.Completed, E.RetryFailed, S.Running],
  [S.Stopped, E.RetryFailed, S.Running],
  [S.Failed, E.RetryFailed, S.Running],
];

const key = (from: S, event: E) => `${from}/${event}`;
const allowed = new Map(ALLOWED.map(([from, event, to]) => [key(from, event), to]));
const everyPair = Object.values(S).flatMap((from) => Object.values(E).map((event) => [from, event] as const));

describe('transitionRun', () => {
  it.each(everyPair)('%s + %s', (from, event) => {
    const result = transitionRun(from, event);
    const expected = allowed.get(key(from, event));
    if (expected === undefined) {
      expect(result).toEqual({
        ok: false,
        code: 'RUN_TRANSITION_REFUSED',
        reason: `a ${from} run cannot ${event}`,
      });
    } else {
      expect(result).toEqual({ ok: true, next: expected });
    }
  });

  it('covers all 7 x 10 pairs', () => {
    expect(everyPair).toHaveLength(70);
  });

  it('leaves a finished run only through retry-failed', () => {
    for (const [from, event] of everyPair) {
      const result = transitionRun(from, event);
      if (isFinished(from) && result.ok) expect(event).toBe(E.RetryFailed);
    }
  });

  it('reaches every state from PENDING', () => {
    const seen = new Set<S>([S.Pending]);
    let frontier: S[] = [S.Pending];
    while (frontier.length > 0) {
      frontier = frontier.flatMap((from) =>
        Object.values(E).flatMap((event) => {
          const r = transitionRun(from, event);
          if (!r.ok || seen.has(r.next)) return [];
          seen.add(r.next);
          return [r.next];
        }),
      );
    }
    expect([...seen].sort()).toEqual(Object.values(S).sort());
  });
});
