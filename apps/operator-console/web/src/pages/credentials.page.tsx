import { useEffect, useMemo, useState } from 'preact/hooks';
import type { CredentialRate, CredentialView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import { ErrorAlert } from '../components/error-alert';
import { TableRegion } from '../components/table-region';
import { type ChartSeries, UplotChart } from '../components/uplot-chart';
import { formatCount, formatRate, formatTime } from '../format/format';
import { useResource } from '../hooks/use-resource';
import { useSession } from '../hooks/use-session';
import { credentialRateColumns } from '../live/credential-series';

/** How often each credential's rate is read again. */
const REFRESH_MS = 5000;

const SERIES: readonly ChartSeries[] = [
  { label: 'AIMD rate (/s)', stroke: '#1f5fbf' },
  { label: '429s', stroke: '#c62828', dash: [4, 3], scale: 'y2' },
];

/** Every credential's AIMD rate with its floor and ceiling, a rate chart and its congestion events. */
export function CredentialsPage() {
  const session = useSession();
  const [pages, setPages] = useState<(string | undefined)[]>([undefined]);
  const list = useResource(async () => {
    const items: CredentialView[] = [];
    let next: string | null = null;
    for (const after of pages) {
      const page = await scheduler.credentials(after);
      items.push(...page.items);
      next = page.nextAfter;
    }
    return { items, next };
  }, [pages]);
  return (
    <section class="page" aria-labelledby="credentials-heading">
      <h1 id="credentials-heading">Credentials</h1>
      <ErrorAlert error={list.error} />
      {list.data === undefined ? (
        list.error === null ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : list.data.items.length === 0 ? (
        <p>No credentials.</p>
      ) : (
        list.data.items.map((credential) => (
          <CredentialCard key={credential.id} credential={credential} showTenant={session.isOperator} />
        ))
      )}
      {list.data?.next === null || list.data === undefined ? null : (
        <button
          type="button"
          class="button"
          onClick={() => setPages([...pages, list.data?.next ?? undefined])}
        >
          More credentials
        </button>
      )}
    </section>
  );
}

function CredentialCard({ credential, showTenant }: { credential: CredentialView; showTenant: boolean }) {
  const rate = useResource(() => scheduler.credentialRate(credential.id), [credential.id]);
  useEffect(() => {
    const timer = window.setInterval(rate.reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [rate.reload]);
  const columns = useMemo(() => credentialRateColumns(rate.data?.series ?? []), [rate.data]);
  const headingId = `credential-${credential.id}`;
  return (
    <article class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{credential.name}</h2>
      <p class="muted">
        {credential.provider} · {credential.channel} · <code>{credential.id}</code>
        {showTenant ? ` · tenant ${credential.tenantId}` : ''}
      </p>
      <dl class="facts facts-rate">
        <div>
          <dt>Current rate</dt>
          <dd>{rate.data?.current == null ? '—' : `${formatRate(rate.data.current.rate)}/s`}</dd>
        </div>
        <div>
          <dt>Floor</dt>
          <dd>{formatRate(credential.rateFloorPerSec)}/s</dd>
        </div>
        <div>
          <dt>Ceiling</dt>
          <dd>{formatRate(credential.rateCeilingPerSec)}/s</dd>
        </div>
        <div>
          <dt>Tenant cap</dt>
          <dd>
            {credential.tenantRateCapPerSec === null
              ? 'none'
              : `${formatRate(credential.tenantRateCapPerSec)}/s`}
          </dd>
        </div>
      </dl>
      <ErrorAlert error={rate.error} context="Rate" />
      <figure class="chart-figure chart-small">
        <figcaption>Rate, last 5 minutes</figcaption>
        <UplotChart series={SERIES} data={columns} leftLabel="rate / s" rightLabel="429s / s" height={160} />
      </figure>
      <CongestionTable rate={rate.data} />
    </article>
  );
}

function CongestionTable({ rate }: { rate: CredentialRate | undefined }) {
  const events = rate?.congestionEvents ?? [];
  return (
    <TableRegion label="Congestion events">
      <table class="table table-compact">
        <caption>Congestion events</caption>
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">Rate</th>
            <th scope="col">429s</th>
            <th scope="col">5xx</th>
            <th scope="col">Timeouts</th>
            <th scope="col">Decreases</th>
          </tr>
        </thead>
        <tbody>
          {events.length === 0 ? (
            <tr>
              <td colSpan={6} class="muted">
                No congestion in the last 24 hours.
              </td>
            </tr>
          ) : (
            events.map((event) => (
              <tr key={event.at}>
                <td class="nowrap">{formatTime(event.at)}</td>
                <td>{formatRate(event.rate)}</td>
                <td>{formatCount(event.congested)}</td>
                <td>{formatCount(event.errors5xx)}</td>
                <td>{formatCount(event.timeouts)}</td>
                <td>{formatCount(event.decreases)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </TableRegion>
  );
}
