import type { Cursors } from '../hooks/use-cursors';

export interface CursorPagerProps {
  readonly cursors: Cursors;
  /** The next page's cursor from the answer; null on the last page. */
  readonly next: string | null;
  /** What the pages are ("messages", "deliveries"): names the group. */
  readonly of: string;
}

/** First, Previous and Next page buttons over keyset pages. */
export function CursorPager({ cursors, next, of }: CursorPagerProps) {
  const atFirst = cursors.pageNumber === 1;
  return (
    <div class="pager" role="group" aria-label={`Pages of ${of}`}>
      <span class="muted">Page {cursors.pageNumber}</span>
      <button type="button" class="button" disabled={atFirst} onClick={cursors.first}>
        First page
      </button>
      <button type="button" class="button" disabled={atFirst} onClick={cursors.back}>
        Previous page
      </button>
      <button
        type="button"
        class="button"
        disabled={next === null}
        onClick={() => {
          if (next !== null) cursors.forward(next);
        }}
      >
        Next page
      </button>
    </div>
  );
}
