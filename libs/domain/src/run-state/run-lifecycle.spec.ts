import { RunLifecycleEvent as E, RunState as S } from '@ums/contracts';
import { runLifecycleEventOf } from './run-lifecycle';
import { RunEvent, transitionRun } from './run-state-machine';

describe('runLifecycleEventOf', () => {
  it('names each state a run enters from the state it left', () => {
    const cases: [S, S, E][] = [
      [S.Pending, S.Scheduled, E.Scheduled],
      [S.Scheduled, S.Running, E.Started],
      [S.Pending, S.Running, E.Started],
      [S.Running, S.Paused, E.Paused],
      [S.Scheduled, S.Paused, E.Paused],
      [S.Paused, S.Running, E.Resumed],
      [S.Running, S.Stopped, E.Stopped],
      [S.Scheduled, S.Stopped, E.Stopped],
      [S.Running, S.Completed, E.Completed],
      [S.Running, S.Failed, E.Failed],
      [S.Completed, S.Running, E.Retried],
      [S.Failed, S.Running, E.Retried],
    ];
    for (const [from, to, event] of cases)
      expect({ from, to, event: runLifecycleEventOf(from, to) }).toEqual({ from, to, event });
  });

  it('has no event where the state stays', () => {
    for (const state of Object.values(S)) expect(runLifecycleEventOf(state, state)).toBeUndefined();
  });

  it('names every transition the run state machine allows', () => {
    for (const from of Object.values(S)) {
      for (const event of Object.values(RunEvent)) {
        const t = transitionRun(from, event);
        if (t.ok && t.next !== from) expect(runLifecycleEventOf(from, t.next)).toBeDefined();
      }
    }
  });
});
