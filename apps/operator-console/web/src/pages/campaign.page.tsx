import { useEffect, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/api-error';
import type { CampaignDetailView, RunView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { CountersList } from '../components/counters-list';
import { ErrorAlert } from '../components/error-alert';
import { ProgressBar } from '../components/progress-bar';
import { StateBadge } from '../components/state-badge';
import { TableRegion } from '../components/table-region';
import { finishedCount, formatCount, formatTime, progressPercent } from '../format/format';
import { useResource } from '../hooks/use-resource';
import { hrefOf } from '../router/routes';

/** While a campaign may still get or move runs, its page reloads this often. */
const REFRESH_MS = 3000;

function startText(campaign: CampaignDetailView): string {
  const audience = `${formatCount(campaign.audienceSize)} recipient${campaign.audienceSize === 1 ? '' : 's'}`;
  switch (campaign.schedule.kind) {
    case 'at':
      return `Start run: the campaign leaves DRAFT and its run fires at ${formatTime(campaign.schedule.at)}, sending to ${audience}.`;
    case 'cron':
      return `Start run: the campaign leaves DRAFT and runs at each time of "${campaign.schedule.cron ?? ''}", sending to ${audience} each time.`;
    default:
      return `Start run: the campaign leaves DRAFT and its run starts now, sending the message to ${audience}.`;
  }
}

/** A campaign: what it sends, to how many, its runs, and Start run. */
export function CampaignPage({ campaignId }: { campaignId: string }) {
  const campaign = useResource(() => scheduler.campaign(campaignId), [campaignId]);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState('');
  const data = campaign.data;
  const moving = data !== undefined && (data.state === 'ACTIVE' || data.runs.some((run) => !isFinished(run)));
  useEffect(() => {
    if (!moving) return undefined;
    const timer = window.setInterval(campaign.reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [moving, campaign.reload]);
  if (data === undefined) {
    return (
      <section class="page" aria-labelledby="campaign-heading">
        <h1 id="campaign-heading">Campaign {campaignId}</h1>
        {campaign.error === null ? <p class="muted">Loading…</p> : <ErrorAlert error={campaign.error} />}
      </section>
    );
  }
  const start = async (): Promise<void> => {
    setBusy(true);
    setActionError(null);
    try {
      const started = await scheduler.campaignAction(campaignId, 'start');
      setNotice(`Start run: done, the campaign is ${started.state}.`);
      setConfirming(false);
      campaign.reload();
    } catch (thrown) {
      setActionError(toApiError(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="page" aria-labelledby="campaign-heading">
      <div class="page-head">
        <h1 id="campaign-heading">{data.name}</h1>
        <StateBadge state={data.state} />
      </div>
      <CampaignFacts campaign={data} />
      <div class="toolbar">
        <button
          type="button"
          class="button button-primary"
          disabled={data.state !== 'DRAFT'}
          onClick={() => {
            setActionError(null);
            setConfirming(true);
          }}
        >
          Start run
        </button>
        {data.state === 'DRAFT' ? null : <span class="muted">Only a DRAFT campaign can be started.</span>}
      </div>
      <p role="status" class="notice">
        {notice}
      </p>
      <ErrorAlert error={campaign.error} context="Refreshing the campaign failed" />
      <RunsTable campaignId={campaignId} runs={data.runs} />
      <ConfirmDialog
        open={confirming}
        title="Start run"
        text={startText(data)}
        busy={busy}
        error={actionError}
        onConfirm={() => void start()}
        onCancel={() => setConfirming(false)}
      />
    </section>
  );
}

function isFinished(run: RunView): boolean {
  return run.state === 'COMPLETED' || run.state === 'STOPPED' || run.state === 'FAILED';
}

function CampaignFacts({ campaign }: { campaign: CampaignDetailView }) {
  const template = campaign.template;
  return (
    <dl class="facts">
      <div>
        <dt>Channel</dt>
        <dd>{campaign.channel}</dd>
      </div>
      <div>
        <dt>Tenant</dt>
        <dd>{campaign.tenantId}</dd>
      </div>
      <div>
        <dt>Credential</dt>
        <dd>
          <code>{campaign.credentialId}</code>
        </dd>
      </div>
      <div>
        <dt>Audience</dt>
        <dd>{formatCount(campaign.audienceSize)} recipients</dd>
      </div>
      <div>
        <dt>Schedule</dt>
        <dd>
          {campaign.schedule.kind}
          {campaign.nextFireAt === null ? '' : `, next ${formatTime(campaign.nextFireAt)}`}
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>{formatTime(campaign.createdAt)}</dd>
      </div>
      <div class="fact-wide">
        <dt>Message</dt>
        <dd class="message-text">{template.text ?? template.templateName ?? ''}</dd>
      </div>
    </dl>
  );
}

function RunsTable({ campaignId, runs }: { campaignId: string; runs: readonly RunView[] }) {
  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs</h2>
      {runs.length === 0 ? (
        <p>No runs yet.</p>
      ) : (
        <TableRegion label="Runs">
          <table class="table">
            <caption class="visually-hidden">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">State</th>
                <th scope="col">Fires at</th>
                <th scope="col">Finished</th>
                <th scope="col">Progress</th>
                <th scope="col">Counters</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.id}>
                  <th scope="row">
                    <a href={hrefOf({ page: 'run', campaignId, runId: run.id })}>Run {run.id}</a>
                  </th>
                  <td>
                    <StateBadge state={run.state} />
                  </td>
                  <td>{formatTime(run.fireAt)}</td>
                  <td>{formatTime(run.finishedAt)}</td>
                  <td class="cell-progress">
                    <ProgressBar
                      label={`Progress of run ${run.id}`}
                      percent={progressPercent(run.counters)}
                      done={finishedCount(run.counters)}
                      total={run.counters.total}
                    />
                  </td>
                  <td>
                    <CountersList counters={run.counters} compact />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  );
}
