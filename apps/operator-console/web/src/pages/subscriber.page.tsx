import { useEffect, useState } from 'preact/hooks';
import type { DeliveryView, SubscriberView } from '../api/api.types';
import { dispatcher } from '../api/console-client';
import { CursorPager } from '../components/cursor-pager';
import { ErrorAlert } from '../components/error-alert';
import { StateBadge } from '../components/state-badge';
import { TableRegion } from '../components/table-region';
import { formatCount, formatTime } from '../format/format';
import { useCursors } from '../hooks/use-cursors';
import { useResource } from '../hooks/use-resource';
import { SubscriberActions } from './subscriber-actions';

/** The subscriber and its newest deliveries are read again this often (a replay shows as it goes). */
const REFRESH_MS = 3000;

const DELIVERY_STATES = ['PENDING', 'DELIVERED', 'RETRYING', 'DEAD_LETTERED', 'MISSED'] as const;

/** One subscriber: health, deliveries, Resurrect and Replay. */
export function SubscriberPage({ subscriberId }: { subscriberId: string }) {
  const subscriber = useResource(() => dispatcher.subscriber(subscriberId), [subscriberId]);
  const [version, setVersion] = useState(0);
  const { reload } = subscriber;
  useEffect(() => {
    const timer = window.setInterval(reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);
  const data = subscriber.data;
  return (
    <section class="page" aria-labelledby="subscriber-heading">
      <div class="page-head">
        <h1 id="subscriber-heading">Subscriber {data?.url ?? subscriberId}</h1>
        {data === undefined ? null : <StateBadge state={data.state} testId="subscriber-state" />}
      </div>
      <ErrorAlert error={subscriber.error} />
      {data === undefined ? null : (
        <>
          <SubscriberFacts subscriber={data} />
          <SubscriberActions
            subscriber={data}
            onDone={() => {
              reload();
              setVersion(version + 1);
            }}
          />
        </>
      )}
      <SubscriberDeliveries subscriberId={subscriberId} version={version} />
    </section>
  );
}

/** The subscriber's deliveries, newest first, the first page read again every few seconds. */
function SubscriberDeliveries({ subscriberId, version }: { subscriberId: string; version: number }) {
  const [deliveryState, setDeliveryState] = useState('');
  const cursors = useCursors();
  const deliveries = useResource(
    () => dispatcher.deliveries(subscriberId, deliveryState, cursors.current),
    [subscriberId, deliveryState, cursors.current, version],
  );
  const { reload } = deliveries;
  const firstPage = cursors.current === undefined;
  useEffect(() => {
    if (!firstPage) return undefined;
    const timer = window.setInterval(reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload, firstPage]);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <div class="filters">
        <div class="field">
          <label for="delivery-state">Delivery state</label>
          <select
            id="delivery-state"
            value={deliveryState}
            onChange={(e) => {
              setDeliveryState(e.currentTarget.value);
              cursors.first();
            }}
          >
            <option value="">All</option>
            {DELIVERY_STATES.map((state) => (
              <option key={state} value={state}>
                {state}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorAlert error={deliveries.error} />
      <DeliveriesTable items={deliveries.data?.items ?? []} />
      <CursorPager cursors={cursors} next={deliveries.data?.nextBefore ?? null} of="deliveries" />
    </section>
  );
}

function SubscriberFacts({ subscriber }: { subscriber: SubscriberView }) {
  const facts: [string, string][] = [
    ['Tenant', subscriber.tenantId],
    ['Events', subscriber.eventTypes.join(', ')],
    ['Campaign', subscriber.campaignId ?? 'all'],
    [
      'Failures in window',
      subscriber.failuresInWindow === undefined ? '—' : formatCount(subscriber.failuresInWindow),
    ],
    ['Last success', formatTime(subscriber.lastSuccessAt)],
    ['Last failure', formatTime(subscriber.lastFailureAt)],
    ['Dead since', formatTime(subscriber.deadSince)],
    ['Last error', subscriber.lastError ?? '—'],
  ];
  return (
    <dl class="facts">
      {facts.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function DeliveriesTable({ items }: { items: readonly DeliveryView[] }) {
  if (items.length === 0) return <p>No deliveries.</p>;
  return (
    <TableRegion label="Deliveries">
      <table class="table">
        <caption class="visually-hidden">Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Type</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last status</th>
            <th scope="col">Last error</th>
            <th scope="col">Delivered</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((delivery) => (
            <tr key={delivery.id}>
              <td>
                <code>{delivery.eventId}</code>
              </td>
              <td>{delivery.eventType}</td>
              <td>
                <StateBadge state={delivery.state} />
              </td>
              <td>{delivery.attempts}</td>
              <td>{delivery.lastStatusCode ?? '—'}</td>
              <td>{delivery.lastError ?? '—'}</td>
              <td class="nowrap">{formatTime(delivery.deliveredAt)}</td>
              <td class="nowrap">{formatTime(delivery.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
