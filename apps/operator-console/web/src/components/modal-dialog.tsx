import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

export interface ModalDialogProps {
  readonly open: boolean;
  readonly title: string;
  /** Escape, the Cancel button and closing by the browser all come here. */
  readonly onClose: () => void;
  readonly children: ComponentChildren;
}

/**
 * A modal `<dialog>` opened with showModal(): the rest of the page is inert (focus stays inside), Escape
 * closes it, and focus returns to what had it before.
 */
export function ModalDialog({ open, title, onClose, children }: ModalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
    } else if (!open && element.open) {
      element.close();
      if (opener.current instanceof HTMLElement) opener.current.focus();
    }
  }, [open]);
  useEffect(() => () => dialog.current?.close(), []);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClose={() => {
        // The browser closed it (a repeated Escape): the page follows.
        if (open) onClose();
      }}
    >
      {open ? (
        <div class="dialog-body">
          <h2 id={titleId}>{title}</h2>
          {children}
        </div>
      ) : null}
    </dialog>
  );
}
