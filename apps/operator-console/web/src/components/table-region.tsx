import type { ComponentChildren } from 'preact';

/**
 * A table's scrolling frame: on a narrow screen the table scrolls sideways inside it, and keyboard users
 * can scroll it (it is focusable, named like the table).
 */
export function TableRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
