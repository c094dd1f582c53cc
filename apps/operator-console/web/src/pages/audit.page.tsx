import { useState } from 'preact/hooks';
import type { AuditEventView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import type { AuditFilter } from '../api/console.api';
import { CursorPager } from '../components/cursor-pager';
import { ErrorAlert } from '../components/error-alert';
import { TableRegion } from '../components/table-region';
import { formatTime, localInputToUtc } from '../format/format';
import { useCursors } from '../hooks/use-cursors';
import { useResource } from '../hooks/use-resource';

interface Draft {
  readonly action: string;
  readonly principalId: string;
  /** A datetime-local value. */
  readonly since: string;
}

const EMPTY: Draft = { action: '', principalId: '', since: '' };

function filterOf(draft: Draft): AuditFilter {
  return { action: draft.action, principalId: draft.principalId, since: localInputToUtc(draft.since) ?? '' };
}

/** Every state-changing API call: who, for which tenant, what, on what, with which answer; newest first. */
export function AuditPage() {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [filter, setFilter] = useState<AuditFilter>(filterOf(EMPTY));
  const cursors = useCursors();
  const page = useResource(() => scheduler.auditEvents(filter, cursors.current), [filter, cursors.current]);
  return (
    <section class="page" aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit trail</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter(filterOf(draft));
          cursors.first();
        }}
      >
        <div class="field">
          <label for="audit-action">Action</label>
          <input
            id="audit-action"
            placeholder="POST /v1/campaigns"
            value={draft.action}
            onInput={(e) => setDraft({ ...draft, action: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="audit-principal">Principal</label>
          <input
            id="audit-principal"
            value={draft.principalId}
            onInput={(e) => setDraft({ ...draft, principalId: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="audit-since">Since</label>
          <input
            id="audit-since"
            type="datetime-local"
            value={draft.since}
            onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })}
          />
        </div>
        <button type="submit" class="button">
          Apply
        </button>
      </form>
      <ErrorAlert error={page.error} />
      {page.data === undefined ? null : <AuditTable items={page.data.items} />}
      <CursorPager cursors={cursors} next={page.data?.next ?? null} of="audit events" />
    </section>
  );
}

function AuditTable({ items }: { items: readonly AuditEventView[] }) {
  if (items.length === 0) return <p>No audit events match.</p>;
  return (
    <TableRegion label="Audit events">
      <table class="table">
        <caption class="visually-hidden">Audit events, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Principal</th>
            <th scope="col">Tenant</th>
            <th scope="col">Service</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col">Result</th>
            <th scope="col">Request</th>
          </tr>
        </thead>
        <tbody>
          {items.map((event) => (
            <tr key={event.id}>
              <td class="nowrap">{formatTime(event.occurredAt)}</td>
              <td>
                {event.principalKind} <code>{event.principalId}</code>
              </td>
              <td>{event.tenantId ?? 'all'}</td>
              <td>{event.service}</td>
              <td class="nowrap">
                <code>{event.action}</code>
              </td>
              <td>{event.target ?? '—'}</td>
              <td>{event.status}</td>
              <td>{event.result === 'ok' ? 'ok' : <code>{event.result}</code>}</td>
              <td>
                <code>{event.requestId ?? '—'}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
