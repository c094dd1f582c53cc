/** Anything that runs SQL with positional parameters (a TypeORM DataSource, for one). */
export interface SqlQueryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Message rows of a run by state, counted from the rows themselves (not the run's counters). */
export async function messageStatesOf(db: SqlQueryable, runId: string): Promise<Record<string, number>> {
  const rows = (await db.query('SELECT state, COUNT(*) AS n FROM messages WHERE run_id = ? GROUP BY state', [
    runId,
  ])) as { state: string; n: number | string }[];
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
