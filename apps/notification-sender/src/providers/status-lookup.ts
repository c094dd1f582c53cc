import type { StatusLookup, StatusQuery } from './provider-adapter';

/** Every query `unknown` for one reason (the lookup request failed): the rows stay as they are. */
export function lookupsUnknown(queries: readonly StatusQuery[], detail: string): StatusLookup[] {
  return queries.map((q) => ({ messageId: q.messageId, kind: 'unknown', detail }));
}

/** A thrown transport error as a short detail (undici's code and message; never headers). */
export function transportDetail(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return `lookup request failed${typeof code === 'string' ? ` (${code})` : ''}: ${message}`;
}
