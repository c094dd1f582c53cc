import { useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/api-error';
import { scheduler } from '../api/console-client';
import type { DeadLetterFilter } from '../api/console.api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { plural } from '../format/format';

function filterText(filter: DeadLetterFilter): string {
  const parts = [
    filter.sourceTopic.trim() === '' ? null : `source topic ${filter.sourceTopic.trim()}`,
    filter.errorCode.trim() === '' ? null : `error code ${filter.errorCode.trim()}`,
    filter.consumerGroup.trim() === '' ? null : `consumer group ${filter.consumerGroup.trim()}`,
  ].filter((part): part is string => part !== null);
  return parts.join(', ');
}

/** Replay: the selected dead letters, or (none selected) every not yet replayed one matching the filters. */
export function DeadLetterReplay(props: {
  selected: readonly string[];
  filter: DeadLetterFilter;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState('');
  const matching = filterText(props.filter);
  const text =
    props.selected.length > 0
      ? `Replay: ${plural(props.selected.length, 'dead letter')} (${props.selected.join(', ')}) will be published ` +
        'again to the topics they failed on.'
      : `Replay: every dead letter with ${matching} that was not replayed yet will be published again to the ` +
        'topic it failed on.';
  const confirm = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const result = await scheduler.replayDeadLetters(props.selected, props.filter);
      const refused = result.refused.map((r) => `${r.id}: ${r.reason}`).join('; ');
      setNotice(
        `Replay: ${plural(result.replayed.length, 'dead letter')} published again` +
          (result.refused.length === 0 ? '.' : `; ${result.refused.length} refused (${refused}).`),
      );
      setOpen(false);
      props.onDone();
    } catch (thrown) {
      setError(toApiError(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="toolbar">
      <button
        type="button"
        class="button"
        disabled={props.selected.length === 0 && matching === ''}
        onClick={() => {
          setError(null);
          setOpen(true);
        }}
      >
        Replay
      </button>
      <span class="muted">
        {props.selected.length > 0
          ? `${plural(props.selected.length, 'dead letter')} selected.`
          : 'Select dead letters, or apply a topic, error code or group filter, to replay.'}
      </span>
      <p role="status" class="notice">
        {notice}
      </p>
      <ConfirmDialog
        open={open}
        title="Replay"
        text={text}
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onCancel={() => setOpen(false)}
      />
    </div>
  );
}
