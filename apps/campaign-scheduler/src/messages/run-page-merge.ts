/** The first `limit` rows of both reads by id, each id once (a row moved between them is read twice). */
export function mergeById<Row extends { readonly id: string }>(
  hot: readonly Row[],
  archived: readonly Row[],
  limit: number,
): Row[] {
  if (archived.length === 0) return hot.slice(0, limit);
  const byId = new Map<string, Row>();
  for (const row of [...hot, ...archived]) if (!byId.has(row.id)) byId.set(row.id, row);
  return [...byId.values()]
    .sort((a, b) => {
      const x = BigInt(a.id);
      const y = BigInt(b.id);
      return x < y ? -1 : x > y ? 1 : 0;
    })
    .slice(0, limit);
}
