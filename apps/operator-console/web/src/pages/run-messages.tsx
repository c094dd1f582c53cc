import { useState } from 'preact/hooks';
import type { RunMessageView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import type { MessageFilter } from '../api/console.api';
import { saveBlob } from '../api/download';
import { CursorPager } from '../components/cursor-pager';
import { ErrorAlert } from '../components/error-alert';
import { StateBadge } from '../components/state-badge';
import { TableRegion } from '../components/table-region';
import { formatTime } from '../format/format';
import { useAction } from '../hooks/use-action';
import { useCursors } from '../hooks/use-cursors';
import { useResource } from '../hooks/use-resource';
import { hrefOf } from '../router/routes';

const STATUSES = ['PENDING', 'SENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED', 'UNKNOWN', 'SKIPPED'] as const;

const NO_FILTER: MessageFilter = { states: [], recipient: '' };

interface RunRef {
  readonly campaignId: string;
  readonly runId: string;
}

/** A run's messages with Status and Recipient filters, pages of 50 (keyset) and the CSV export. */
export function RunMessages({ campaignId, runId }: RunRef) {
  const [filter, setFilter] = useState<MessageFilter>(NO_FILTER);
  const cursors = useCursors();
  const page = useResource(
    () => scheduler.messages(campaignId, runId, filter, cursors.current),
    [campaignId, runId, filter, cursors.current],
  );
  return (
    <section class="messages" aria-labelledby="messages-heading">
      <h2 id="messages-heading">Messages</h2>
      <div class="filters">
        <MessageFilters
          onApply={(next) => {
            setFilter(next);
            cursors.first();
          }}
        />
        <ExportLink campaignId={campaignId} runId={runId} filter={filter} />
        <button type="button" class="button" onClick={page.reload}>
          Refresh
        </button>
      </div>
      <ErrorAlert error={page.error} />
      {page.data === undefined ? (
        page.error === null ? (
          <p class="muted">Loading messages…</p>
        ) : null
      ) : (
        <MessagesTable items={page.data.items} />
      )}
      <CursorPager cursors={cursors} next={page.data?.nextAfter ?? null} of="messages" />
    </section>
  );
}

function MessageFilters({ onApply }: { onApply: (filter: MessageFilter) => void }) {
  const [status, setStatus] = useState('');
  const [recipient, setRecipient] = useState('');
  return (
    <form
      class="filters filters-inline"
      onSubmit={(event) => {
        event.preventDefault();
        onApply({ states: status === '' ? [] : [status], recipient: recipient.trim() });
      }}
    >
      <div class="field">
        <label for="message-status">Status</label>
        <select id="message-status" value={status} onChange={(event) => setStatus(event.currentTarget.value)}>
          <option value="">All</option>
          {STATUSES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="message-recipient">Recipient</label>
        <input
          id="message-recipient"
          type="search"
          value={recipient}
          placeholder="+4915112345678"
          onInput={(event) => setRecipient(event.currentTarget.value)}
        />
      </div>
      <button type="submit" class="button">
        Apply
      </button>
    </form>
  );
}

/** Export CSV: fetched with the key and saved as a file (a plain link to the API could not send the key). */
function ExportLink({ campaignId, runId, filter }: RunRef & { filter: MessageFilter }) {
  const exporting = useAction();
  return (
    <>
      <a
        class="button button-link"
        href={hrefOf({ page: 'run', campaignId, runId })}
        aria-disabled={exporting.busy}
        onClick={(event) => {
          event.preventDefault();
          if (exporting.busy) return;
          void exporting.run(async () => {
            saveBlob(await scheduler.exportMessages(campaignId, runId, filter), `run-${runId}-messages.csv`);
          });
        }}
      >
        {exporting.busy ? 'Exporting…' : 'Export CSV'}
      </a>
      <ErrorAlert error={exporting.error} context="Export failed" />
    </>
  );
}

function MessagesTable({ items }: { items: readonly RunMessageView[] }) {
  if (items.length === 0) return <p>No messages match.</p>;
  return (
    <TableRegion label="Messages of the run">
      <table class="table">
        <caption class="visually-hidden">Messages of the run, by id</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Recipient</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Reason</th>
            <th scope="col">Sent</th>
            <th scope="col">Delivered</th>
            <th scope="col">Read</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {items.map((message) => (
            <tr key={message.id}>
              <td>{message.id}</td>
              <td class="nowrap">{message.recipient}</td>
              <td>
                <StateBadge state={message.state} />
              </td>
              <td>{message.attempts}</td>
              <td>{[message.reason, message.errorCode, message.errorText].filter(Boolean).join(' · ')}</td>
              <td class="nowrap">{formatTime(message.sentAt)}</td>
              <td class="nowrap">{formatTime(message.deliveredAt)}</td>
              <td class="nowrap">{formatTime(message.readAt)}</td>
              <td class="nowrap">{formatTime(message.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
