import { useState } from 'preact/hooks';
import type { SubscriberView } from '../api/api.types';
import { dispatcher } from '../api/console-client';
import { ErrorAlert } from '../components/error-alert';
import { StateBadge } from '../components/state-badge';
import { TableRegion } from '../components/table-region';
import { formatCount, formatTime } from '../format/format';
import { useResource } from '../hooks/use-resource';
import { useSession } from '../hooks/use-session';
import { hrefOf } from '../router/routes';

/** Webhook subscribers with their health: state, failures in the window, last success and failure. */
export function SubscribersPage() {
  const session = useSession();
  const [pages, setPages] = useState<(string | undefined)[]>([undefined]);
  const list = useResource(async () => {
    const items: SubscriberView[] = [];
    let next: string | null = null;
    for (const after of pages) {
      const page = await dispatcher.subscribers(after);
      items.push(...page.items);
      next = page.nextAfter;
    }
    return { items, next };
  }, [pages]);
  const next = list.data?.next ?? null;
  return (
    <section class="page" aria-labelledby="subscribers-heading">
      <div class="page-head">
        <h1 id="subscribers-heading">Subscribers</h1>
        <button type="button" class="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <ErrorAlert error={list.error} />
      {list.data === undefined ? (
        list.error === null ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : (
        <SubscribersTable items={list.data.items} showTenant={session.isOperator} />
      )}
      {next === null ? null : (
        <button type="button" class="button" onClick={() => setPages([...pages, next])}>
          More subscribers
        </button>
      )}
    </section>
  );
}

function SubscribersTable({ items, showTenant }: { items: readonly SubscriberView[]; showTenant: boolean }) {
  if (items.length === 0) return <p>No subscribers.</p>;
  return (
    <TableRegion label="Subscribers and their health">
      <table class="table">
        <caption class="visually-hidden">Subscribers and their health</caption>
        <thead>
          <tr>
            <th scope="col">Subscriber</th>
            {showTenant ? <th scope="col">Tenant</th> : null}
            <th scope="col">Health</th>
            <th scope="col">Failures in window</th>
            <th scope="col">Last success</th>
            <th scope="col">Last failure</th>
            <th scope="col">Dead since</th>
            <th scope="col">Last error</th>
            <th scope="col">Events</th>
          </tr>
        </thead>
        <tbody>
          {items.map((subscriber) => (
            <tr key={subscriber.id}>
              <th scope="row">
                <a href={hrefOf({ page: 'subscriber', subscriberId: subscriber.id })}>{subscriber.url}</a>
              </th>
              {showTenant ? <td>{subscriber.tenantId}</td> : null}
              <td>
                <StateBadge state={subscriber.state} />
              </td>
              <td>
                {subscriber.failuresInWindow === undefined ? (
                  <FailureWindow subscriberId={subscriber.id} />
                ) : (
                  formatCount(subscriber.failuresInWindow)
                )}
              </td>
              <td class="nowrap">{formatTime(subscriber.lastSuccessAt)}</td>
              <td class="nowrap">{formatTime(subscriber.lastFailureAt)}</td>
              <td class="nowrap">{formatTime(subscriber.deadSince)}</td>
              <td>{subscriber.lastError ?? '—'}</td>
              <td>{subscriber.eventTypes.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

/** The failures in the subscriber's window: only its own answer carries the count (read once per row). */
function FailureWindow({ subscriberId }: { subscriberId: string }) {
  const detail = useResource(() => dispatcher.subscriber(subscriberId), [subscriberId]);
  const count = detail.data?.failuresInWindow;
  if (detail.error !== null) return <span title={detail.error.message}>{detail.error.code}</span>;
  return <>{count === undefined ? '…' : formatCount(count)}</>;
}
