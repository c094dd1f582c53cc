import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/api-error';
import { ErrorAlert } from './error-alert';
import { ModalDialog } from './modal-dialog';

export interface ConfirmDialogProps {
  readonly open: boolean;
  /** Titled like the button that opened it. */
  readonly title: string;
  /** What will happen. */
  readonly text: string;
  readonly busy: boolean;
  readonly error: ApiError | null;
  /** Whether Confirm may be pressed (a required choice made). */
  readonly canConfirm?: boolean;
  readonly destructive?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  /** Extra controls between the text and the buttons. */
  readonly children?: ComponentChildren;
}

/** A dialog that says what an action will do, with Confirm and Cancel. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  return (
    <ModalDialog open={props.open} title={props.title} onClose={props.onCancel}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (!props.busy && props.canConfirm !== false) props.onConfirm();
        }}
      >
        <p class="dialog-text">{props.text}</p>
        {props.children}
        <ErrorAlert error={props.error} />
        <div class="dialog-actions">
          <button
            type="submit"
            class={props.destructive === true ? 'button button-danger' : 'button button-primary'}
            disabled={props.busy || props.canConfirm === false}
          >
            {props.busy ? 'Working…' : 'Confirm'}
          </button>
          <button type="button" class="button" onClick={props.onCancel} autofocus>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
