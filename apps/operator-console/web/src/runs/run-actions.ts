import type { RunActionName } from '../api/console.api';
import type { RunCounters } from '../api/api.types';
import { formatCount, plural } from '../format/format';

export interface RunActionSpec {
  readonly action: RunActionName;
  /** The button's and the dialog's title. */
  readonly label: string;
  /** The run states the API accepts the action in (libs/domain run-state-machine, RunsService). */
  readonly states: readonly string[];
  /** Whether it cannot be taken back (the dialog's Confirm is styled as dangerous). */
  readonly destructive: boolean;
}

export const RUN_ACTIONS: readonly RunActionSpec[] = [
  { action: 'pause', label: 'Pause', states: ['SCHEDULED', 'RUNNING'], destructive: false },
  { action: 'resume', label: 'Resume', states: ['PAUSED'], destructive: false },
  { action: 'stop', label: 'Stop', states: ['RUNNING', 'PAUSED'], destructive: true },
  {
    action: 'retry-failed',
    label: 'Retry failed',
    states: ['COMPLETED', 'STOPPED', 'FAILED'],
    destructive: false,
  },
  {
    action: 'resend-unknown',
    label: 'Resend unknown',
    states: ['RUNNING', 'COMPLETED', 'STOPPED', 'FAILED'],
    destructive: false,
  },
];

export function runActionSpec(action: RunActionName): RunActionSpec {
  const spec = RUN_ACTIONS.find((candidate) => candidate.action === action);
  if (spec === undefined) throw new Error(`Unknown run action ${action}`);
  return spec;
}

/** Which counter an action works on: retry-failed and resend-unknown have nothing to do when it is 0. */
const WORKS_ON: Partial<Record<RunActionName, keyof RunCounters>> = {
  'retry-failed': 'failed',
  'resend-unknown': 'unknown',
};

/** Whether the API accepts the action on a run in `state`, and it has messages to act on. */
export function isRunActionAvailable(action: RunActionName, state: string, counters: RunCounters): boolean {
  const counter = WORKS_ON[action];
  if (counter !== undefined && counters[counter] === 0) return false;
  return runActionSpec(action).states.includes(state);
}

/** What the action will do, with the run's counters: the confirm dialog's text. */
export function describeRunAction(action: RunActionName, counters: RunCounters): string {
  switch (action) {
    case 'pause':
      return (
        `Pause: sending stops; ${plural(counters.pending, 'pending message')} will wait until you resume ` +
        `(${formatCount(counters.sending)} already with the sender still finish).`
      );
    case 'resume':
      return `Resume: sending restarts; ${plural(counters.pending, 'pending message')} will be sent.`;
    case 'stop':
      return (
        `Stop: the run ends for good; ${plural(counters.pending, 'pending message')} will not be sent. ` +
        'Only Retry failed and Resend unknown can act on it afterwards.'
      );
    case 'retry-failed':
      return (
        `Retry failed: ${plural(counters.failed, 'message')} in FAILED will be sent again, ` +
        'and the run turns RUNNING until they are settled.'
      );
    case 'resend-unknown':
      return (
        `Resend unknown: ${plural(counters.unknown, 'message')} in UNKNOWN will be sent again. ` +
        'The provider may have taken the first attempt, so some recipients may get the message twice.'
      );
  }
}

/** The status line after the action was taken. */
export function runActionDone(action: RunActionName, newState: string, requeued?: number): string {
  const label = runActionSpec(action).label;
  const again = requeued === undefined ? '' : `; ${plural(requeued, 'message')} queued again`;
  return `${label}: done, the run is ${newState}${again}.`;
}
