import { useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/api-error';
import type { RunCounters, RunView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import type { RunActionName } from '../api/console.api';
import { ConfirmDialog } from '../components/confirm-dialog';
import {
  describeRunAction,
  isRunActionAvailable,
  RUN_ACTIONS,
  runActionDone,
  runActionSpec,
} from '../runs/run-actions';

export interface RunActionsBarProps {
  readonly campaignId: string;
  readonly runId: string;
  readonly state: string;
  readonly counters: RunCounters;
  /** The run as the action's answer shows it. */
  readonly onDone: (run: RunView) => void;
}

/** Pause, Resume, Stop, Retry failed and Resend unknown: each enabled in the states it applies to, each confirmed. */
export function RunActionsBar({ campaignId, runId, state, counters, onDone }: RunActionsBarProps) {
  const [open, setOpen] = useState<{ action: RunActionName; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState('');
  const confirm = async (action: RunActionName): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const result = await scheduler.runAction(campaignId, runId, action);
      setNotice(runActionDone(action, result.run.state, result.requeued));
      setOpen(null);
      onDone(result.run);
    } catch (thrown) {
      setError(toApiError(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="run-actions">
      <div class="toolbar" role="group" aria-label="Run actions">
        {RUN_ACTIONS.map((spec) => (
          <button
            key={spec.action}
            type="button"
            class={spec.destructive ? 'button button-danger-outline' : 'button'}
            disabled={!isRunActionAvailable(spec.action, state, counters)}
            onClick={() => {
              setError(null);
              setOpen({ action: spec.action, text: describeRunAction(spec.action, counters) });
            }}
          >
            {spec.label}
          </button>
        ))}
      </div>
      <p role="status" class="notice">
        {notice}
      </p>
      <ConfirmDialog
        open={open !== null}
        title={open === null ? '' : runActionSpec(open.action).label}
        text={open?.text ?? ''}
        busy={busy}
        error={error}
        destructive={open === null ? false : runActionSpec(open.action).destructive}
        onConfirm={() => {
          if (open !== null) void confirm(open.action);
        }}
        onCancel={() => setOpen(null)}
      />
    </div>
  );
}
