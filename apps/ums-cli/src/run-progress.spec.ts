import { RunState, type RunView } from '@ums/contracts';
import { isRunFinished, runProgress } from './run-progress';

/** A run with only what runProgress reads: its expansion and the counters of unfinished messages. */
const run = (
  counters: Pick<RunView['counters'], 'total' | 'pending' | 'sending'>,
  expandedAt: string | null,
): RunView => ({ expandedAt, counters }) as RunView;

describe('run progress', () => {
  it('calls COMPLETED, STOPPED and FAILED runs finished, and no other state', () => {
    const finished = Object.values(RunState).filter(isRunFinished);
    expect(finished.sort()).toEqual([RunState.Completed, RunState.Failed, RunState.Stopped].sort());
  });

  it('counts messages past PENDING and SENDING, out of the audience until the run is expanded', () => {
    expect(runProgress(run({ total: 40, pending: 10, sending: 5 }, null), 100)).toEqual({
      done: 25,
      total: 100,
    });
    expect(runProgress(run({ total: 90, pending: 0, sending: 0 }, '2030-01-01T00:00:00.000Z'), 100)).toEqual({
      done: 90,
      total: 90,
    });
  });
});
