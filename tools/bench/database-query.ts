import { createDataSource, type MysqlConnectionSettings } from '@ums/platform';

export type DatabaseQuery = (sql: string, params?: unknown[]) => Promise<unknown>;

/** One connection to the database server for a few statements of a benchmark's own, closed after. */
export async function withDatabase<T>(
  settings: MysqlConnectionSettings,
  work: (query: DatabaseQuery) => Promise<T>,
): Promise<T> {
  const ds = createDataSource({ ...settings, poolSize: 1 });
  await ds.initialize();
  try {
    return await work((sql, params) => ds.query(sql, params) as Promise<unknown>);
  } finally {
    await ds.destroy();
  }
}
