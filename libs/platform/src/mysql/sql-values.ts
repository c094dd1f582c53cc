import { isCanonicalTimestamp } from '@ums/contracts';

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

/**
 * A validated ISO 8601 instant as a DATETIME(3) literal in UTC. The canonical form (`isCanonicalTimestamp`)
 * is cut, not parsed: a Date round trip costs about a microsecond, once per applied status on the
 * sender's hot path. Other forms (offsets, no milliseconds) go through Date.
 */
export function sqlDateTime(iso: string): string {
  if (isCanonicalTimestamp(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  return new Date(iso).toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * A message time that has not happened yet. Message times are NOT NULL so that rows keep their
 * length when they are set (updates in place; see migration 1764900000000): read them through
 * `messageTime`, which answers NULL for this value.
 */
export const NEVER_SQL = "'1970-01-01 00:00:00.000'";

/**
 * A message's provider id as a SELECT expression (`message_provider_ids`, looked up by primary key; NULL
 * when the provider has named none). In a locking read it locks nothing: every writer of that table
 * holds the message row's lock.
 */
export function providerMessageIdOf(messageIdColumn: string): string {
  return `(SELECT p.provider_message_id FROM message_provider_ids p WHERE p.message_id = ${messageIdColumn})`;
}

/** A message time column as a SELECT expression: NULL until the time has happened. */
export function messageTime(column: string): string {
  return `NULLIF(${column}, ${NEVER_SQL})`;
}
