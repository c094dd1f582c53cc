import type { ImportSummary, RejectView } from '../api/api.types';

/** How often the import is read while it runs. */
export const IMPORT_POLL_MS = 1000;
/** The rejected rows the page lists at most (the rejects route pages through all of them). */
export const MAX_REJECTS_SHOWN = 1000;

export function isImportDone(summary: ImportSummary): boolean {
  return summary.state === 'COMPLETED' || summary.state === 'FAILED';
}

/** "Accepted 2, rejected 1" — what the import page says when the import is done. */
export function importOutcome(summary: ImportSummary): string {
  return `Accepted ${summary.rowsAccepted}, rejected ${summary.rowsRejected}`;
}

export interface RejectsPage {
  readonly items: readonly RejectView[];
  readonly nextAfter: number | null;
}

/**
 * Every rejected row up to `max`, page after page; whether more were left out.
 */
export async function collectRejects(
  fetchPage: (after: number | undefined) => Promise<RejectsPage>,
  max: number = MAX_REJECTS_SHOWN,
): Promise<{ rows: RejectView[]; more: boolean }> {
  const rows: RejectView[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await fetchPage(after);
    rows.push(...page.items);
    if (page.nextAfter === null) return { rows: rows.slice(0, max), more: rows.length > max };
    if (rows.length >= max) return { rows: rows.slice(0, max), more: true };
    after = page.nextAfter;
  }
}
