import { Injectable } from '@nestjs/common';
import type { DeadLetterV1 } from '@ums/contracts';
import { jsonColumn, selectRows, type TenantFilter, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';

/** A stored dead letter: the entry as it came from `ums.dead-letters.v1`, and its replays. */
export interface DeadLetterRecord {
  readonly id: string;
  /** The tenant of the original message; null when unknown (operators only). */
  readonly tenantId: string | null;
  readonly consumerGroup: string;
  readonly sourceTopic: string;
  readonly sourcePartition: number;
  readonly sourceOffset: string;
  readonly key: string | null;
  readonly value: string | null;
  readonly valueEncoding: 'utf8' | 'base64';
  readonly headers: Record<string, string>;
  readonly errorCode: string;
  readonly reason: string;
  readonly attempts: number;
  readonly failedAt: Date | null;
  readonly replays: number;
  readonly replayedAt: Date | null;
  readonly createdAt: Date;
}

/** An entry to store, with the tenant read from its original message (null: unknown). */
export type DeadLetterEntry = DeadLetterV1 & { readonly tenantId: string | null };

export interface DeadLetterFilter {
  /** One tenant's entries, or (null) every entry, those of no known tenant included (operators). */
  readonly tenantId: TenantFilter;
  readonly sourceTopic?: string;
  readonly errorCode?: string;
  readonly consumerGroup?: string;
  /** true: only replayed ones; false: only never replayed ones; undefined: both. */
  readonly replayed?: boolean;
}

/** Never-replayed entries of one source topic and error code. */
export interface OpenDeadLetters {
  readonly sourceTopic: string;
  readonly errorCode: string;
  readonly count: number;
}

/** A `dead_letters` row as COLUMNS selects it (the id is a BIGINT: a string; INT UNSIGNED columns are numbers). */
interface DeadLetterRow {
  readonly id: string;
  readonly tenant_id: string | null;
  readonly consumer_group: string;
  readonly source_topic: string;
  readonly source_partition: number;
  readonly source_offset: string;
  readonly message_key: string | null;
  readonly message_value: string | null;
  /** chk_dead_letters_value_encoding allows these two only. */
  readonly value_encoding: 'utf8' | 'base64';
  /** JSON: parsed on MySQL 8, its text on MariaDB (where JSON is LONGTEXT). */
  readonly headers: unknown;
  readonly error_code: string;
  readonly reason: string;
  readonly attempts: number;
  readonly failed_at: Date | null;
  readonly replays: number;
  readonly replayed_at: Date | null;
  readonly created_at: Date;
}

/** MAX(id): the BIGINT as a string, NULL on an empty table. */
interface NewestIdRow {
  readonly id: string | null;
}

/** COUNT(*) is a BIGINT: a string. */
interface OpenCountRow {
  readonly source_topic: string;
  readonly error_code: string;
  readonly n: string;
}

const COLUMNS = `id, tenant_id, consumer_group, source_topic, source_partition, source_offset, message_key, message_value,
  value_encoding, headers, error_code, reason, attempts, failed_at, replays, replayed_at, created_at`;

/** INT UNSIGNED columns take the contract's integers clamped: no entry can fail its insert and block the partition. */
const MAX_INT_UNSIGNED = 4_294_967_295;
/** DATETIME(3) holds years 1000-9999; a failedAt outside is stored as unknown (null). */
const MIN_DATETIME_MS = Date.UTC(1000, 0, 1);
const MAX_DATETIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The `dead_letters` table (low volume: plain statements; one multi-row insert per consumed chunk). */
@Injectable()
export class DeadLettersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores entries once per (consumer group, source topic, partition, offset); an entry consumed again
   * changes nothing. Not INSERT IGNORE: that would turn any other error into a warning and store a
   * truncated row.
   */
  async insertMany(letters: readonly DeadLetterEntry[]): Promise<void> {
    if (letters.length === 0) return;
    await writeRows(
      this.dataSource,
      `INSERT INTO dead_letters (tenant_id, consumer_group, source_topic, source_partition, source_offset,
         message_key, message_value, value_encoding, headers, error_code, reason, attempts, failed_at)
       VALUES ${letters.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON DUPLICATE KEY UPDATE id = id`,
      letters.flatMap((letter) => [
        letter.tenantId,
        letter.consumerGroup,
        letter.sourceTopic,
        Math.min(letter.sourcePartition, MAX_INT_UNSIGNED),
        letter.sourceOffset,
        letter.key ?? null,
        letter.value ?? null,
        letter.valueEncoding,
        JSON.stringify(letter.headers),
        letter.errorCode,
        letter.reason,
        Math.min(letter.attempts, MAX_INT_UNSIGNED),
        storableInstant(letter.failedAt),
      ]),
    );
  }

  /** The entry, if it is the tenant's (any entry for null): another tenant's is not found. */
  async findById(tenantId: TenantFilter, id: string): Promise<DeadLetterRecord | undefined> {
    const tenant = tenantCondition(tenantId);
    const rows = await selectRows<DeadLetterRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM dead_letters WHERE id = ? ${tenant.sql}`,
      [id, ...tenant.params],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /** Those of the ids that exist and are the tenant's (any entry for null), in id order. */
  async findByIds(tenantId: TenantFilter, ids: readonly string[]): Promise<DeadLetterRecord[]> {
    if (ids.length === 0) return [];
    const tenant = tenantCondition(tenantId);
    const rows = await selectRows<DeadLetterRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM dead_letters WHERE id IN (?) ${tenant.sql} ORDER BY id`,
      [ids, ...tenant.params],
    );
    return rows.map(toRecord);
  }

  /** Newest first, before the id `before` (keyset; a tenant's pages are one range of idx_dead_letters_tenant). */
  async list(
    filter: DeadLetterFilter,
    before: string | undefined,
    limit: number,
  ): Promise<DeadLetterRecord[]> {
    const { where, params } = conditions(filter);
    if (before !== undefined) {
      where.push('id < ?');
      params.push(before);
    }
    const rows = await selectRows<DeadLetterRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM dead_letters ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toRecord);
  }

  /** The newest entry's id ('0' when there is none). */
  async newestId(): Promise<string> {
    const [row] = await selectRows<NewestIdRow>(this.dataSource, 'SELECT MAX(id) AS id FROM dead_letters');
    return row?.id ?? '0';
  }

  /**
   * Oldest first, ids in (`after`, `upTo`]: what a replay by filter takes, in the order the entries
   * failed. `upTo` keeps out entries stored while the replay runs (a replayed message that fails again).
   */
  async listForReplay(
    filter: DeadLetterFilter,
    after: string,
    upTo: string,
    limit: number,
  ): Promise<DeadLetterRecord[]> {
    const { where, params } = conditions(filter);
    where.push('id > ?', 'id <= ?');
    params.push(after, upTo);
    const rows = await selectRows<DeadLetterRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM dead_letters WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toRecord);
  }

  /** Records a replay of those of the ids that are the tenant's (all of them for null). */
  async markReplayed(tenantId: TenantFilter, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const tenant = tenantCondition(tenantId);
    await writeRows(
      this.dataSource,
      `UPDATE dead_letters SET replays = replays + 1, replayed_at = UTC_TIMESTAMP(3) WHERE id IN (?) ${tenant.sql}`,
      [ids, ...tenant.params],
    );
  }

  /** Never-replayed entries by source topic and error code (idx_dead_letters_replayed: its NULL range, index only). */
  async countOpen(): Promise<OpenDeadLetters[]> {
    const rows = await selectRows<OpenCountRow>(
      this.dataSource,
      `SELECT source_topic, error_code, COUNT(*) AS n FROM dead_letters
        WHERE replayed_at IS NULL GROUP BY source_topic, error_code`,
    );
    return rows.map((r) => ({ sourceTopic: r.source_topic, errorCode: r.error_code, count: Number(r.n) }));
  }

  /**
   * Deletes up to `limit` entries last replayed more than `olderThanMs` ago, oldest replay first
   * (idx_dead_letters_replayed); never-replayed ones (replayed_at NULL) are outside the range. Returns how many.
   */
  async pruneReplayed(olderThanMs: number, limit: number): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      `DELETE FROM dead_letters WHERE replayed_at < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND
        ORDER BY replayed_at LIMIT ?`,
      [olderThanMs * 1000, limit],
    );
    return result.affectedRows;
  }
}

/** `AND tenant_id = ?` for a tenant; nothing for null (every entry, those of no known tenant included). */
function tenantCondition(tenantId: TenantFilter): { sql: string; params: unknown[] } {
  return tenantId === null ? { sql: '', params: [] } : { sql: 'AND tenant_id = ?', params: [tenantId] };
}

function conditions(filter: DeadLetterFilter): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.tenantId !== null) {
    where.push('tenant_id = ?');
    params.push(filter.tenantId);
  }
  if (filter.sourceTopic !== undefined) {
    where.push('source_topic = ?');
    params.push(filter.sourceTopic);
  }
  if (filter.errorCode !== undefined) {
    where.push('error_code = ?');
    params.push(filter.errorCode);
  }
  if (filter.consumerGroup !== undefined) {
    where.push('consumer_group = ?');
    params.push(filter.consumerGroup);
  }
  if (filter.replayed !== undefined) where.push(filter.replayed ? 'replays > 0' : 'replays = 0');
  return { where, params };
}

/** A DATETIME(3) literal in UTC, or null outside the column's range. */
function storableInstant(iso: string): string | null {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms) || ms < MIN_DATETIME_MS || ms > MAX_DATETIME_MS) return null;
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

function toRecord(row: DeadLetterRow): DeadLetterRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    consumerGroup: row.consumer_group,
    sourceTopic: row.source_topic,
    sourcePartition: row.source_partition,
    sourceOffset: row.source_offset,
    key: row.message_key,
    value: row.message_value,
    valueEncoding: row.value_encoding,
    headers: jsonColumn(row.headers) as Record<string, string>,
    errorCode: row.error_code,
    reason: row.reason,
    attempts: row.attempts,
    failedAt: row.failed_at,
    replays: row.replays,
    replayedAt: row.replayed_at,
    createdAt: row.created_at,
  };
}
