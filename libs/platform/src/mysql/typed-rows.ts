/** What can run SQL: a TypeORM DataSource, EntityManager or QueryRunner. */
export interface SqlRunner {
  query(sql: string, parameters?: readonly unknown[]): Promise<unknown>;
}

/**
 * A SELECT's rows as the row interface of its query. The interface names the columns as the SQL
 * selects them, with the types mysql2 gives them here: BIGINT and DECIMAL as strings (bigNumberStrings),
 * DATETIME as Date, JSON as parsed values, NULL as null. Map each shape to its domain type in one mapper.
 */
export async function selectRows<Row extends object>(
  runner: SqlRunner,
  sql: string,
  parameters: readonly unknown[] = [],
): Promise<Row[]> {
  return (await runner.query(sql, parameters)) as Row[];
}

/** What mysql2 answers to INSERT, UPDATE and DELETE. */
export interface WriteResult {
  readonly affectedRows: number;
  readonly insertId: number | string;
}

/** The result of an INSERT, UPDATE or DELETE: TypeORM's MySQL driver answers mysql2's header as it is. */
export async function writeRows(
  runner: SqlRunner,
  sql: string,
  parameters: readonly unknown[] = [],
): Promise<WriteResult> {
  return (await runner.query(sql, parameters)) as WriteResult;
}
