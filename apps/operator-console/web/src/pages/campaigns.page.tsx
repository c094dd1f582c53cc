import { useState } from 'preact/hooks';
import type { LiveCampaignItem, LiveCampaignsFrame } from '../api/api.types';
import { CountersList } from '../components/counters-list';
import { LiveStatusLine } from '../components/live-status';
import { ProgressBar } from '../components/progress-bar';
import { StateBadge } from '../components/state-badge';
import { TableRegion } from '../components/table-region';
import { finishedCount, formatCount, plural, progressPercent } from '../format/format';
import { useLiveStream } from '../hooks/use-live-stream';
import { useSession } from '../hooks/use-session';
import { hrefOf } from '../router/routes';

/** The campaigns with their latest run's progress, live from GET /v1/live/campaigns. */
export function CampaignsPage() {
  const session = useSession();
  const [frame, setFrame] = useState<LiveCampaignsFrame | null>(null);
  const status = useLiveStream('scheduler', '/v1/live/campaigns', (event, data) => {
    if (event === 'campaigns') setFrame(JSON.parse(data) as LiveCampaignsFrame);
  });
  const campaigns = frame?.campaigns ?? [];
  const running = campaigns.filter((c) => c.latestRun?.state === 'RUNNING').length;
  return (
    <section class="page" aria-labelledby="campaigns-heading">
      <div class="page-head">
        <h1 id="campaigns-heading">Campaigns</h1>
        <LiveStatusLine status={status} />
      </div>
      {frame === null ? (
        status.kind === 'stopped' ? null : (
          <p class="muted">Loading campaigns…</p>
        )
      ) : (
        <>
          <p class="summary" aria-live="polite">
            {plural(campaigns.length, 'campaign')}, {formatCount(running)} running.
          </p>
          <CampaignsTable campaigns={campaigns} showTenant={session.isOperator} />
        </>
      )}
    </section>
  );
}

function CampaignsTable({
  campaigns,
  showTenant,
}: {
  campaigns: readonly LiveCampaignItem[];
  showTenant: boolean;
}) {
  if (campaigns.length === 0) {
    return <p>No campaigns yet. Create one with New campaign.</p>;
  }
  return (
    <TableRegion label="Campaigns">
      <table class="table">
        <caption class="visually-hidden">Campaigns, newest first, with their latest run</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Progress</th>
            <th scope="col">Latest run</th>
            <th scope="col">Counters</th>
            <th scope="col">Channel</th>
            <th scope="col">Campaign</th>
            {showTenant ? <th scope="col">Tenant</th> : null}
          </tr>
        </thead>
        <tbody>
          {campaigns.map((campaign) => (
            <CampaignRow key={campaign.id} campaign={campaign} showTenant={showTenant} />
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

function CampaignRow({ campaign, showTenant }: { campaign: LiveCampaignItem; showTenant: boolean }) {
  const run = campaign.latestRun;
  return (
    <tr>
      <th scope="row">
        <a href={hrefOf({ page: 'campaign', campaignId: campaign.id })}>{campaign.name}</a>
      </th>
      <td class="cell-progress">
        {run === null ? null : (
          <ProgressBar
            label={`Progress of ${campaign.name}`}
            percent={progressPercent(run.counters)}
            done={finishedCount(run.counters)}
            total={run.counters.total}
          />
        )}
      </td>
      <td>
        {run === null ? (
          <span class="muted">none</span>
        ) : (
          <a class="run-link" href={hrefOf({ page: 'run', campaignId: campaign.id, runId: run.id })}>
            <span class="run-id">Run {run.id}</span> <StateBadge state={run.state} />
          </a>
        )}
      </td>
      <td>{run === null ? null : <CountersList counters={run.counters} compact />}</td>
      <td>{campaign.channel}</td>
      <td>
        <StateBadge state={campaign.state} />
      </td>
      {showTenant ? <td>{campaign.tenantId}</td> : null}
    </tr>
  );
}
