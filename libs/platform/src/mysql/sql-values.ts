/** A DATETIME column as ISO 8601 (the pool reads DATETIME as UTC Dates), or null. */
export function isoOrNull(value: unknown): string | null {
  return value instanceof Date ? value.toISOString() : null;
}

/**
 * A JSON column's value: parsed already on MySQL 8, text on MariaDB (where JSON is LONGTEXT).
 */
export function jsonColumn(value: unknown): unknown {
  return typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
}
