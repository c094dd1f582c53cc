import type { RunView } from '@ums/client';
import { runProgress } from './run-progress';
import { formatFields, formatTable, formatTime, progressBar } from './output.formatter';

export function runRows(runs: readonly RunView[], audienceSize: number): (string | number)[][] {
  return runs.map((run) => {
    const { done, total } = runProgress(run, audienceSize);
    const c = run.counters;
    return [
      run.id,
      run.state,
      formatTime(run.fireAt),
      c.total,
      c.pending,
      c.sending,
      c.sent,
      c.delivered,
      c.read,
      c.failed,
      c.unknown,
      c.skipped,
      total > 0 ? `${Math.floor((done / total) * 100)}%` : '0%',
    ];
  });
}

export const RUN_HEADERS = [
  'RUN',
  'STATE',
  'FIRE AT',
  'TOTAL',
  'PENDING',
  'SENDING',
  'SENT',
  'DELIVERED',
  'READ',
  'FAILED',
  'UNKNOWN',
  'SKIPPED',
  'DONE',
];

/** One run in full: state, times, checkpoint-free summary, counters and a progress bar. */
export function formatRun(run: RunView, audienceSize: number): string {
  const { done, total } = runProgress(run, audienceSize);
  return (
    formatFields([
      ['run', run.id],
      ['campaign', run.campaignId],
      ['state', run.state],
      ['fire at', formatTime(run.fireAt)],
      ['started', formatTime(run.startedAt)],
      ['expanded', formatTime(run.expandedAt)],
      ['finished', formatTime(run.finishedAt)],
      ['attempts', run.attempts],
      ['failure', run.failureReason],
      ['progress', progressBar(done, total)],
    ]) + `\n${formatTable(RUN_HEADERS, runRows([run], audienceSize))}`
  );
}
