/** A column of per-row values read back by JSON_TABLE: its name (also the JSON key) and SQL type. */
export interface JsonRowsColumn {
  readonly name: string;
  /** An unsigned id column takes digit strings (ids beyond 2^53 stay exact); the rest take strings. */
  readonly type: 'BIGINT UNSIGNED' | 'DATETIME(3)' | `VARCHAR(${number})`;
}

/** A row's values by column name; null or absent is SQL NULL. */
export type JsonRow = Readonly<Record<string, string | null | undefined>>;

const NAME = /^[a-z_][a-z0-9_]*$/;
const DIGITS = /^\d{1,20}$/;

/**
 * Per-row values for a multi-row UPDATE as one JSON parameter, joined as a table:
 * `UPDATE t JOIN ${jsonRowsTable(columns, 'v')} ON t.id = v.id SET ...` with `jsonRows(columns, rows)`
 * as its parameter. MariaDB (10.6+) and MySQL 8 both read it with one JSON_TABLE, one query block: a
 * UNION ALL of one SELECT per row cost MariaDB 19 µs a row to parse and plan (6 µs this way), and
 * `CASE id WHEN ...` lists are scanned for every row (quadratic).
 */
export function jsonRowsTable(columns: readonly JsonRowsColumn[], alias: string): string {
  for (const name of [alias, ...columns.map((c) => c.name)]) {
    if (!NAME.test(name)) throw new Error(`Not a plain SQL name: ${name}`);
  }
  const defs = columns.map((c) => `${c.name} ${c.type} PATH '$.${c.name}'`).join(', ');
  return `JSON_TABLE(?, '$[*]' COLUMNS (${defs})) ${alias}`;
}

/** The JSON parameter for `jsonRowsTable`: null or absent values are left out (JSON_TABLE reads NULL). */
export function jsonRows(columns: readonly JsonRowsColumn[], rows: readonly JsonRow[]): string {
  const parts: string[] = [];
  for (const row of rows) {
    const fields: string[] = [];
    for (const { name, type } of columns) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      if (type === 'BIGINT UNSIGNED') {
        if (!DIGITS.test(value)) throw new Error(`${name} must be an unsigned integer, got ${value}`);
        fields.push(`"${name}":${value}`);
      } else {
        fields.push(`"${name}":${JSON.stringify(value)}`);
      }
    }
    parts.push(`{${fields.join(',')}}`);
  }
  return `[${parts.join(',')}]`;
}
