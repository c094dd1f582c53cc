import type { CampaignDetailView, RunView } from '@ums/contracts';
import { isRunFinished, runProgress } from './run-progress';
import type { CommandContext } from './command.types';
import { progressBar } from './output.formatter';

/** One line of run progress: state, bar, and the outcome counters. */
export function runProgressLine(run: RunView, audienceSize: number): string {
  const { done, total } = runProgress(run, audienceSize);
  const c = run.counters;
  return (
    `run ${run.id} ${run.state.padEnd(9)} ${progressBar(done, total)}  ` +
    `sent ${c.sent + c.delivered + c.read} failed ${c.failed} unknown ${c.unknown} skipped ${c.skipped}`
  );
}

/**
 * Polls the campaign until the watched run (the given one, else the latest) is COMPLETED, STOPPED
 * or FAILED, drawing its progress; returns the last campaign view. A campaign with no run that is
 * not ACTIVE has nothing to wait for and returns at once.
 */
export async function watchRun(
  context: CommandContext,
  campaignId: string,
  runId: string | undefined,
  intervalMs: number,
): Promise<{ campaign: CampaignDetailView; run: RunView | undefined }> {
  const api = context.api();
  const reporter = context.progress();
  for (;;) {
    const campaign = await api.get<CampaignDetailView>(`/v1/campaigns/${encodeURIComponent(campaignId)}`);
    let run: RunView | undefined =
      runId === undefined ? campaign.runs[0] : campaign.runs.find((r) => r.id === runId);
    if (run === undefined && runId !== undefined) {
      run = await api.get<RunView>(
        `/v1/campaigns/${encodeURIComponent(campaignId)}/runs/${encodeURIComponent(runId)}`,
      );
    }
    if (run === undefined) {
      if (campaign.state !== 'ACTIVE') {
        reporter.finish(`campaign ${campaign.id} is ${campaign.state} and has no run to watch`);
        return { campaign, run };
      }
      reporter.update(`campaign ${campaign.id} is ACTIVE; waiting for its first run`);
    } else {
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
