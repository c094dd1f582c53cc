/** What one try of a group of items came to. */
export type TryOutcome<F> =
  { readonly kind: 'ok' } | { readonly kind: 'stop' } | { readonly kind: 'failed'; readonly failure: F };

export interface ItemFailure<T, F> {
  readonly item: T;
  readonly failure: F;
}

/**
 * Runs `tryItems` on all items; when that fails, splits them in two halves and tries each (first
 * half first, so work keeps its order), down to single items, so that only the items that fail on
 * their own are reported. Items of a half that succeeded count as done even if an earlier, larger
 * try failed: the work must be idempotent. Returns the failing items with their failure, or
 * 'stop' as soon as a try says to stop (the rest stays untried).
 */
export async function bisectFailures<T, F>(
  items: readonly T[],
  tryItems: (items: readonly T[]) => Promise<TryOutcome<F>>,
): Promise<ItemFailure<T, F>[] | 'stop'> {
  if (items.length === 0) return [];
  const outcome = await tryItems(items);
  if (outcome.kind === 'ok') return [];
  if (outcome.kind === 'stop') return 'stop';
  if (items.length === 1) return [{ item: items[0] as T, failure: outcome.failure }];
  const middle = Math.ceil(items.length / 2);
  const first = await bisectFailures(items.slice(0, middle), tryItems);
  if (first === 'stop') return 'stop';
  const second = await bisectFailures(items.slice(middle), tryItems);
  if (second === 'stop') return 'stop';
  return [...first, ...second];
}
