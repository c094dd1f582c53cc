import { useState } from 'preact/hooks';
import type { DeadLetterView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import type { DeadLetterFilter } from '../api/console.api';
import { CursorPager } from '../components/cursor-pager';
import { ErrorAlert } from '../components/error-alert';
import { TableRegion } from '../components/table-region';
import { formatTime } from '../format/format';
import { useCursors } from '../hooks/use-cursors';
import { useResource } from '../hooks/use-resource';
import { useSession } from '../hooks/use-session';
import { DeadLetterDetails } from './dead-letter-details';
import { DeadLetterReplay } from './dead-letter-replay';

const NO_FILTER: DeadLetterFilter = { sourceTopic: '', errorCode: '', consumerGroup: '', replayed: '' };

/** Stored dead letters: filters, details, and replay of the selected ones or of those matching the filters. */
export function DeadLettersPage() {
  const session = useSession();
  const [filter, setFilter] = useState<DeadLetterFilter>(NO_FILTER);
  const cursors = useCursors();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const page = useResource(() => scheduler.deadLetters(filter, cursors.current), [filter, cursors.current]);
  const toggle = (id: string): void => {
    const copy = new Set(selected);
    if (copy.has(id)) copy.delete(id);
    else copy.add(id);
    setSelected(copy);
  };
  return (
    <section class="page" aria-labelledby="dead-letters-heading">
      <h1 id="dead-letters-heading">Dead letters</h1>
      <DeadLetterFilters
        onApply={(next) => {
          setFilter(next);
          cursors.first();
          setSelected(new Set());
        }}
      />
      <DeadLetterReplay
        selected={[...selected]}
        filter={filter}
        onDone={() => {
          setSelected(new Set());
          page.reload();
        }}
      />
      <ErrorAlert error={page.error} />
      {page.data === undefined ? null : (
        <DeadLettersTable
          items={page.data.items}
          selected={selected}
          toggle={toggle}
          showTenant={session.isOperator}
        />
      )}
      <CursorPager cursors={cursors} next={page.data?.nextBefore ?? null} of="dead letters" />
    </section>
  );
}

function DeadLetterFilters({ onApply }: { onApply: (filter: DeadLetterFilter) => void }) {
  const [draft, setDraft] = useState<DeadLetterFilter>(NO_FILTER);
  const set = (patch: Partial<DeadLetterFilter>): void => setDraft({ ...draft, ...patch });
  return (
    <form
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      <FilterInput
        id="dl-topic"
        label="Source topic"
        value={draft.sourceTopic}
        set={(v) => set({ sourceTopic: v })}
      />
      <FilterInput
        id="dl-code"
        label="Error code"
        value={draft.errorCode}
        set={(v) => set({ errorCode: v })}
      />
      <FilterInput
        id="dl-group"
        label="Consumer group"
        value={draft.consumerGroup}
        set={(v) => set({ consumerGroup: v })}
      />
      <div class="field">
        <label for="dl-replayed">Replayed</label>
        <select
          id="dl-replayed"
          value={draft.replayed}
          onChange={(e) => set({ replayed: e.currentTarget.value as DeadLetterFilter['replayed'] })}
        >
          <option value="">Either</option>
          <option value="no">Not replayed</option>
          <option value="yes">Replayed</option>
        </select>
      </div>
      <button type="submit" class="button">
        Apply
      </button>
    </form>
  );
}

function FilterInput(props: { id: string; label: string; value: string; set: (value: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input id={props.id} value={props.value} onInput={(e) => props.set(e.currentTarget.value)} />
    </div>
  );
}

interface TableProps {
  readonly items: readonly DeadLetterView[];
  readonly selected: ReadonlySet<string>;
  readonly toggle: (id: string) => void;
  readonly showTenant: boolean;
}

function DeadLettersTable({ items, selected, toggle, showTenant }: TableProps) {
  const [expanded, setExpanded] = useState<string | null>(null);
  if (items.length === 0) return <p>No dead letters match.</p>;
  const columns = showTenant ? 9 : 8;
  return (
    <TableRegion label="Dead letters">
      <table class="table">
        <caption class="visually-hidden">Dead letters, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Select</th>
            <th scope="col">Id</th>
            {showTenant ? <th scope="col">Tenant</th> : null}
            <th scope="col">Source topic</th>
            <th scope="col">Error code</th>
            <th scope="col">Reason</th>
            <th scope="col">Failed</th>
            <th scope="col">Replays</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {items.map((letter) => [
            <tr key={letter.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select dead letter ${letter.id}`}
                  checked={selected.has(letter.id)}
                  onChange={() => toggle(letter.id)}
                />
              </td>
              <td>{letter.id}</td>
              {showTenant ? <td>{letter.tenantId ?? '—'}</td> : null}
              <td class="nowrap">{letter.sourceTopic}</td>
              <td>
                <code>{letter.errorCode}</code>
              </td>
              <td>{letter.reason}</td>
              <td class="nowrap">{formatTime(letter.failedAt ?? letter.createdAt)}</td>
              <td>{letter.replays}</td>
              <td>
                <button
                  type="button"
                  class="button button-small"
                  aria-expanded={expanded === letter.id}
                  aria-controls={`dead-letter-${letter.id}`}
                  onClick={() => setExpanded(expanded === letter.id ? null : letter.id)}
                >
                  Details<span class="visually-hidden"> of dead letter {letter.id}</span>
                </button>
              </td>
            </tr>,
            expanded === letter.id ? (
              <tr key={`${letter.id}-details`} id={`dead-letter-${letter.id}`}>
                <td colSpan={columns}>
                  <DeadLetterDetails letter={letter} />
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </TableRegion>
  );
}
