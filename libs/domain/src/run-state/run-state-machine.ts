import { RunErrorCode, RunState } from '@ums/contracts';

/** What can happen to a run (docs/architecture.md, Runs, leases and checkpoints). */
export enum RunEvent {
  /** The scheduler picked a due run and published it. */
  Schedule = 'schedule',
  /** An expander took the lease and began expanding. */
  Start = 'start',
  Pause = 'pause',
  Resume = 'resume',
  /** Stop a started run for good; pending messages stay unsent. */
  Stop = 'stop',
  /** Cancel a run that has not started. */
  Cancel = 'cancel',
  /** The audience is expanded and every message reached a final state. */
  Complete = 'complete',
  /** Retries of a stale checkpoint are exhausted, or the run cannot proceed. */
  Fail = 'fail',
  /** The sweeper found a stale checkpoint: the lease epoch is bumped and the run re-published. */
  RetryStale = 'retry-stale',
  /** Send again only the messages that did not succeed (as in Postman). */
  RetryFailed = 'retry-failed',
}

export type RunTransition =
  | { readonly ok: true; readonly next: RunState }
  | { readonly ok: false; readonly code: RunErrorCode.TransitionRefused; readonly reason: string };

const S = RunState;
const E = RunEvent;

const TRANSITIONS: Readonly<Record<RunState, Partial<Record<RunEvent, RunState>>>> = {
  [S.Pending]: { [E.Schedule]: S.Scheduled, [E.Start]: S.Running, [E.Cancel]: S.Stopped },
  [S.Scheduled]: { [E.Start]: S.Running, [E.Pause]: S.Paused, [E.Cancel]: S.Stopped, [E.Fail]: S.Failed },
  [S.Running]: {
    [E.Pause]: S.Paused,
    [E.Stop]: S.Stopped,
    [E.Complete]: S.Completed,
    [E.Fail]: S.Failed,
    [E.RetryStale]: S.Running,
  },
  [S.Paused]: { [E.Resume]: S.Running, [E.Stop]: S.Stopped },
  [S.Completed]: { [E.RetryFailed]: S.Running },
  [S.Stopped]: { [E.RetryFailed]: S.Running },
  [S.Failed]: { [E.RetryFailed]: S.Running },
};

/** The next state of a run after an event, or a refusal saying why. Pure and total. */
export function transitionRun(current: RunState, event: RunEvent): RunTransition {
  const next = TRANSITIONS[current][event];
  if (next === undefined) {
    return { ok: false, code: RunErrorCode.TransitionRefused, reason: `a ${current} run cannot ${event}` };
  }
  return { ok: true, next };
}

/** States in which the expander may publish batches. */
export function isExpanding(state: RunState): boolean {
  return state === S.Running;
}

/** States a run does not leave without an operator's retry. */
export function isFinished(state: RunState): boolean {
  return state === S.Completed || state === S.Stopped || state === S.Failed;
}
