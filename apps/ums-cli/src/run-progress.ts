import type { RunView } from '@ums/client';

/** Runs in these states do not change without an operator's action (checked against the document's states). */
const FINISHED_RUN_STATES: ReadonlySet<string> = new Set<RunView['state']>([
  'COMPLETED',
  'STOPPED',
  'FAILED',
]);

export function isRunFinished(state: RunView['state']): boolean {
  return FINISHED_RUN_STATES.has(state);
}

/**
 * How far a run is: messages past PENDING and SENDING out of all of them. Until the run is
 * expanded its total is still growing, so the audience size is the better denominator then.
 */
export function runProgress(run: RunView, audienceSize: number): { done: number; total: number } {
  const c = run.counters;
  const done = Math.max(0, c.total - c.pending - c.sending);
  const total = run.expandedAt === null ? Math.max(c.total, audienceSize) : c.total;
  return { done, total };
}
