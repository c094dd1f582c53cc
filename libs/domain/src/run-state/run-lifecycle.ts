import { RunLifecycleEvent, RunState } from '@ums/contracts';

/**
 * The lifecycle event of a run's transition from `from` to `to`, or undefined when the state stays
 * (a stale-checkpoint retry, resend-unknown on a RUNNING run, an expander re-taking a RUNNING run).
 */
export function runLifecycleEventOf(from: RunState, to: RunState): RunLifecycleEvent | undefined {
  if (from === to) return undefined;
  switch (to) {
    case RunState.Scheduled:
      return RunLifecycleEvent.Scheduled;
    case RunState.Running:
      if (from === RunState.Paused) return RunLifecycleEvent.Resumed;
      if (from === RunState.Pending || from === RunState.Scheduled) return RunLifecycleEvent.Started;
      return RunLifecycleEvent.Retried;
    case RunState.Paused:
      return RunLifecycleEvent.Paused;
    case RunState.Stopped:
      return RunLifecycleEvent.Stopped;
    case RunState.Completed:
      return RunLifecycleEvent.Completed;
    case RunState.Failed:
      return RunLifecycleEvent.Failed;
    case RunState.Pending:
      return undefined;
  }
}
