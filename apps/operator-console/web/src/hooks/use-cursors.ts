import { useState } from 'preact/hooks';

export interface Cursors {
  /** The current page's cursor (undefined: the first page). */
  readonly current: string | undefined;
  /** 1-based. */
  readonly pageNumber: number;
  readonly first: () => void;
  readonly back: () => void;
  readonly forward: (next: string) => void;
}

/** Keyset paging: the cursor of each page shown so far, so Previous goes back one. */
export function useCursors(): Cursors {
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  return {
    current: cursors.at(-1),
    pageNumber: cursors.length,
    first: () => setCursors([undefined]),
    back: () => setCursors(cursors.length > 1 ? cursors.slice(0, -1) : cursors),
    forward: (next) => setCursors([...cursors, next]),
  };
}
