import { useState } from 'preact/hooks';
import type { SubscriberView } from '../api/api.types';
import { dispatcher } from '../api/console-client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { formatCount, formatTime, localInputToUtc, utcToLocalInput } from '../format/format';
import { useAction } from '../hooks/use-action';

type Open = 'resurrect' | 'replay' | null;

interface DialogProps {
  readonly subscriber: SubscriberView;
  readonly open: boolean;
  readonly close: () => void;
  /** The status line to show once it is done. */
  readonly done: (notice: string) => void;
}

/** Resurrect (a DEAD or DISABLED subscriber) and Replay from a time (an ALIVE one), each confirmed. */
export function SubscriberActions({
  subscriber,
  onDone,
}: {
  subscriber: SubscriberView;
  onDone: () => void;
}) {
  const [open, setOpen] = useState<Open>(null);
  const [notice, setNotice] = useState('');
  const dialog = (which: Exclude<Open, null>): DialogProps => ({
    subscriber,
    open: open === which,
    close: () => setOpen(null),
    done: (text) => {
      setNotice(text);
      setOpen(null);
      onDone();
    },
  });
  return (
    <div class="subscriber-actions">
      <div class="toolbar">
        <button
          type="button"
          class="button"
          disabled={subscriber.state !== 'DEAD' && subscriber.state !== 'DISABLED'}
          onClick={() => setOpen('resurrect')}
        >
          Resurrect
        </button>
        <button
          type="button"
          class="button"
          disabled={subscriber.state !== 'ALIVE'}
          onClick={() => setOpen('replay')}
        >
          Replay
        </button>
      </div>
      <p role="status" class="notice">
        {notice}
      </p>
      <ResurrectDialog {...dialog('resurrect')} />
      <ReplayDialog {...dialog('replay')} />
    </div>
  );
}

function ResurrectDialog({ subscriber, open, close, done }: DialogProps) {
  const action = useAction();
  const [replayMissed, setReplayMissed] = useState(true);
  return (
    <ConfirmDialog
      open={open}
      title="Resurrect"
      text={
        `Resurrect: ${subscriber.url} leaves ${subscriber.state} and turns REPLAYING; its failure window is ` +
        `cleared. The events it missed since ${formatTime(subscriber.deadSince)} are sent to it in order, then ` +
        'it turns ALIVE.'
      }
      busy={action.busy}
      error={action.error}
      canConfirm={replayMissed}
      onConfirm={() =>
        void action.run(async () => {
          const after = await dispatcher.resurrect(subscriber.id);
          done(`Resurrect: done, the subscriber is ${after.state}; its missed events are being replayed.`);
        })
      }
      onCancel={() => {
        action.clearError();
        close();
      }}
    >
      <label class="check">
        <input
          type="checkbox"
          checked={replayMissed}
          onChange={(e) => setReplayMissed(e.currentTarget.checked)}
        />{' '}
        Replay missed events
      </label>
      {replayMissed ? null : (
        <p class="hint">
          The dispatcher always replays what a resurrected subscriber missed: check it to go on.
        </p>
      )}
    </ConfirmDialog>
  );
}

function ReplayDialog({ subscriber, open, close, done }: DialogProps) {
  const action = useAction();
  const [since, setSince] = useState(() => utcToLocalInput(new Date(Date.now() - 3_600_000)));
  const sinceUtc = localInputToUtc(since);
  return (
    <ConfirmDialog
      open={open}
      title="Replay"
      text={
        `Replay: every delivery to ${subscriber.url} since ${formatTime(sinceUtc)} is queued again; each ` +
        'event keeps its id, so the receiver can drop the ones it already has.'
      }
      busy={action.busy}
      error={action.error}
      canConfirm={sinceUtc !== null}
      onConfirm={() =>
        void action.run(async () => {
          const result = await dispatcher.replaySince(subscriber.id, sinceUtc ?? '');
          done(`Replay: done, ${formatCount(result.replayed)} deliveries queued again.`);
        })
      }
      onCancel={() => {
        action.clearError();
        close();
      }}
    >
      <div class="field">
        <label for="replay-since">Replay from</label>
        <input
          id="replay-since"
          type="datetime-local"
          step={1}
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
        <p class="hint">Your local time; sent as {sinceUtc ?? 'a time'} (UTC).</p>
      </div>
    </ConfirmDialog>
  );
}
