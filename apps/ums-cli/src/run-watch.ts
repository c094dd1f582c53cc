import type { CampaignDetailView, RunEventView, RunView } from '@ums/client';
import { isRunFinished, runProgress } from './run-progress';
import type { CommandContext } from './command.types';
import { progressBar } from './output.formatter';

/** Events asked for per request. */
const EVENTS_PAGE = 100;

/** One line of run progress: state, bar, and the outcome counters. */
export function runProgressLine(run: RunView, audienceSize: number): string {
  const { done, total } = runProgress(run, audienceSize);
  const c = run.counters;
  return (
    `run ${run.id} ${run.state.padEnd(9)} ${progressBar(done, total)}  ` +
    `sent ${c.sent + c.delivered + c.read} failed ${c.failed} unknown ${c.unknown} skipped ${c.skipped}`
  );
}

/** One line per state change of a run: `run 7 started    SCHEDULED -> RUNNING  at ...`. */
export function runEventLine(runId: string, e: RunEventView): string {
  const reason = e.reason === null ? '' : `: ${e.reason}`;
  return `run ${runId} ${e.event.padEnd(9)} ${e.previousState} -> ${e.state}  at ${e.occurredAt}${reason}`;
}

/**
 * Polls the campaign until the watched run (the given one, else the latest) is COMPLETED, STOPPED
 * or FAILED, drawing its progress; returns the last campaign view. Each state change of the run
 * (its lifecycle events, from the run's history) is printed once as a line of its own, oldest first.
 * A campaign with no run that is not ACTIVE has nothing to wait for and returns at once.
 */
export async function watchRun(
  context: CommandContext,
  campaignId: string,
  runId: string | undefined,
  intervalMs: number,
): Promise<{ campaign: CampaignDetailView; run: RunView | undefined }> {
  const api = context.api();
  const reporter = context.progress();
  const seen = { runId: '', after: '0' };
  for (;;) {
    const campaign = await api.campaigns.get(campaignId);
    let run: RunView | undefined =
      runId === undefined ? campaign.runs[0] : campaign.runs.find((r) => r.id === runId);
    if (run === undefined && runId !== undefined) {
      run = await api.runs.get(campaignId, runId);
    }
    if (run === undefined) {
      if (campaign.state !== 'ACTIVE') {
        reporter.finish(`campaign ${campaign.id} is ${campaign.state} and has no run to watch`);
        return { campaign, run };
      }
      reporter.update(`campaign ${campaign.id} is ACTIVE; waiting for its first run`);
    } else {
      // Read after the run: a state it shows was committed with its event, so that event is listed.
      if (seen.runId !== run.id) Object.assign(seen, { runId: run.id, after: '0' });
      for (const event of await runEvents(context, campaignId, run.id, seen.after)) {
        reporter.line(runEventLine(run.id, event));
        seen.after = event.id;
      }
      const line = runProgressLine(run, campaign.audienceSize);
      if (isRunFinished(run.state)) {
        reporter.finish(line);
        return { campaign, run };
      }
      reporter.update(line);
    }
    await context.sleep(intervalMs);
  }
}

/** The run's events after `after`, every page of them. */
async function runEvents(
  context: CommandContext,
  campaignId: string,
  runId: string,
  after: string,
): Promise<RunEventView[]> {
  const events: RunEventView[] = [];
  for (let cursor = after; ;) {
    const page = await context.api().runs.events(campaignId, runId, { after: cursor, limit: EVENTS_PAGE });
    events.push(...page.items);
    const last = page.items.at(-1);
    if (last === undefined || page.items.length < EVENTS_PAGE) return events;
    cursor = last.id;
  }
}
