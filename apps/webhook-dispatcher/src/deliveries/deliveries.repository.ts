import { Injectable } from '@nestjs/common';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { DeliveryJob, DeliveryRecord, DeliverySettlement, DeliveryState } from './delivery.record';

export interface NewDelivery {
  readonly subscriberId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: string;
  readonly state: 'PENDING' | 'MISSED';
}

export interface DeliveryKeyRow {
  readonly id: string;
  readonly subscriberId: string;
  readonly eventId: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly createdAt: Date;
}

/** A deliveries row as COLUMNS selects it (id BIGINT UNSIGNED; attempts SMALLINT UNSIGNED; state by its CHECK). */
interface DeliveryRow {
  readonly id: string;
  readonly subscriber_id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly payload: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly next_attempt_at: Date | null;
  readonly delivered_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A row as `readKeys` selects it. */
type StoredKeyRow = Pick<
  DeliveryRow,
  'id' | 'subscriber_id' | 'event_id' | 'state' | 'attempts' | 'created_at'
>;

type IdRow = Pick<DeliveryRow, 'id'>;

/**
 * A DELIVERED row as the retention pass selects it. Its comparisons are 0 or 1: an INT on MariaDB, a
 * BIGINT (a string here) on MySQL 8.
 */
interface AgedRow {
  readonly id: string;
  readonly old_created: number | string;
  readonly old_delivered: number | string;
}

/** `MIN(created_at)`: NULL when no row matches. */
interface OldestRow {
  readonly created_at: Date | null;
}

const COLUMNS = `id, subscriber_id, event_id, event_type, payload, state, attempts, last_status_code, last_error,
  next_attempt_at, delivered_at, created_at, updated_at`;

const SETTLE_SLICE = 1_000;

/** What one window of the DELIVERED retention pass did. */
export interface DeliveredWindow {
  readonly deleted: number;
  /** Where the next window starts. */
  readonly lastId: string;
  /** The pass met a row too young to delete, or ran out of rows: start again from the oldest next time. */
  readonly passDone: boolean;
}

/** One string per (subscriber, event): the unique key of a delivery, for maps and sets. */
export const deliveryKey = (subscriberId: string, eventId: string): string =>
  `${subscriberId}\u0000${eventId}`;

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** The deliveries table; hot paths use multi-row statements only. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Inserts the rows not there yet (unique (subscriber_id, event_id): a redelivered event changes
   * nothing) and returns every row of the given keys with its id and state. PENDING rows carry a lease
   * (next_attempt_at): if their process dies before settling them, the sweeper attempts them again.
   */
  async insertAndRead(rows: readonly NewDelivery[], leaseMs: number): Promise<DeliveryKeyRow[]> {
    await this.insert(rows, leaseMs);
    return this.readKeys(rows);
  }

  /**
   * One multi-row INSERT IGNORE, in the given order (ids follow it). PENDING and MISSED rows carry a
   * lease (next_attempt_at).
   */
  async insert(rows: readonly NewDelivery[], leaseMs: number): Promise<void> {
    if (rows.length === 0) return;
    await writeRows(
      this.dataSource,
      `INSERT IGNORE INTO deliveries (subscriber_id, event_id, event_type, payload, state, attempts, next_attempt_at)
       VALUES ${rows.map(() => '(?, ?, ?, ?, ?, 0, UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND)').join(', ')}`,
      rows.flatMap((r) => [r.subscriberId, r.eventId, r.eventType, r.payload, r.state, leaseMs * 1000]),
    );
  }

  /** The stored rows of the given (subscriber, event) keys: id, state, attempts, creation time. */
  async readKeys(
    rows: readonly { readonly subscriberId: string; readonly eventId: string }[],
  ): Promise<DeliveryKeyRow[]> {
    if (rows.length === 0) return [];
    // Two IN lists (a range on the unique key) rather than a row-constructor IN, which older optimizers
    // scan the table for; the exact pairs are picked below.
    const subscriberIds = [...new Set(rows.map((r) => r.subscriberId))];
    const eventIds = [...new Set(rows.map((r) => r.eventId))];
    const wanted = new Set(rows.map((r) => deliveryKey(r.subscriberId, r.eventId)));
    const found = await selectRows<StoredKeyRow>(
      this.dataSource,
      `SELECT id, subscriber_id, event_id, state, attempts, created_at FROM deliveries
       WHERE subscriber_id IN (${placeholders(subscriberIds.length)}) AND event_id IN (${placeholders(eventIds.length)})`,
      [...subscriberIds, ...eventIds],
    );
    return found.filter((r) => wanted.has(deliveryKey(r.subscriber_id, r.event_id))).map(toKeyRow);
  }

  async findMany(ids: readonly string[]): Promise<DeliveryRecord[]> {
    if (ids.length === 0) return [];
    const rows = await selectRows<DeliveryRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM deliveries WHERE id IN (${placeholders(ids.length)})`,
      ids,
    );
    return rows.map(toRecord);
  }

  /**
   * Takes rows that are to be attempted now (PENDING or RETRYING) under a fresh lease; returns the ids
   * taken. Rows settled meanwhile (delivered by a duplicate, kept as MISSED) are left alone.
   */
  async lease(ids: readonly string[], leaseMs: number): Promise<Set<string>> {
    return this.leaseFrom(ids, leaseMs, ['PENDING', 'RETRYING']);
  }

  /**
   * Writes many settlements: grouped by their values (state, attempt count, status, error, next attempt
   * rounded to the second), one `UPDATE ... WHERE id IN (...)` per group and slice. A burst of deliveries
   * or of failures of one subscriber collapses into a few statements; no CASE lists (quadratic in MySQL).
   * A DELIVERED row is never moved back by a late failure of a duplicate attempt.
   */
  async settle(settlements: readonly DeliverySettlement[]): Promise<void> {
    const groups = new Map<string, { sample: DeliverySettlement; next: Date | null; ids: string[] }>();
    for (const s of settlements) {
      const next =
        s.nextAttemptAt === undefined ? null : new Date(Math.ceil(s.nextAttemptAt.getTime() / 1000) * 1000);
      const error = s.error?.slice(0, 1024) ?? null;
      const key = JSON.stringify([s.state, s.attempts, s.statusCode ?? null, error, next?.getTime() ?? null]);
      const group = groups.get(key) ?? { sample: s, next, ids: [] };
      group.ids.push(s.deliveryId);
      groups.set(key, group);
    }
    for (const { sample, next, ids } of groups.values()) {
      for (let i = 0; i < ids.length; i += SETTLE_SLICE) {
        const slice = ids.slice(i, i + SETTLE_SLICE);
        await writeRows(
          this.dataSource,
          `UPDATE deliveries SET state = ?, attempts = GREATEST(attempts, ?), last_status_code = ?, last_error = ?,
             next_attempt_at = ?,
             delivered_at = ${sample.state === 'DELIVERED' ? 'UTC_TIMESTAMP(3)' : 'delivered_at'},
             updated_at = UTC_TIMESTAMP(3)
           WHERE id IN (${placeholders(slice.length)})
             ${sample.state === 'DELIVERED' ? '' : "AND state <> 'DELIVERED'"}`,
          [
            sample.state,
            sample.attempts,
            sample.statusCode ?? null,
            sample.error?.slice(0, 1024) ?? null,
            next,
            ...slice,
          ],
        );
      }
    }
  }

  /**
   * PENDING rows whose lease ran out (their process died before settling them), taken under a new
   * lease with SKIP LOCKED so replicas sweeping at once split them.
   */
  async takeExpired(limit: number, leaseMs: number): Promise<DeliveryJob[]> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await selectRows<DeliveryRow>(
        manager,
        `SELECT ${COLUMNS} FROM deliveries
         WHERE state = 'PENDING' AND next_attempt_at < UTC_TIMESTAMP(3)
         ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return [];
      await writeRows(
        manager,
        `UPDATE deliveries SET next_attempt_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND
         WHERE id IN (${placeholders(rows.length)})`,
        [leaseMs * 1000, ...rows.map((r) => r.id)],
      );
      return rows.map((r) =>
        toJob(r, { attempt: r.attempts + 1, firstAttemptAt: r.created_at.toISOString() }),
      );
    });
  }

  /**
   * One window of the retention pass: the next `window` DELIVERED rows after `afterId`, oldest first,
   * read through (state, next_attempt_at), which a DELIVERED row has as (DELIVERED, NULL), so the walk
   * is in id order and never touches other states (ORDER BY id: the key's implicit id suffix, no sort;
   * ORDER BY next_attempt_at, id made MariaDB sort). Rows created and delivered more than `olderThanMs`
   * ago are deleted by primary key (a range DELETE would lock every row it scans and stall the
   * dispatcher's inserts); the window ends at the first row created since then (ids follow creation
   * time), which ends the pass. Rows delivered again lately (a replay) are stepped over. Times are the
   * database's, so the pass does not depend on this host's clock.
   */
  async pruneDeliveredWindow(afterId: string, olderThanMs: number, window: number): Promise<DeliveredWindow> {
    const olderThanUs = olderThanMs * 1000;
    const rows = await selectRows<AgedRow>(
      this.dataSource,
      `SELECT id, created_at < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND AS old_created,
              COALESCE(delivered_at, created_at) < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND AS old_delivered
         FROM deliveries FORCE INDEX (idx_deliveries_state_next_attempt)
        WHERE state = 'DELIVERED' AND next_attempt_at IS NULL AND id > ?
        ORDER BY id LIMIT ?`,
      [olderThanUs, olderThanUs, afterId, window],
    );
    const young = rows.findIndex((r) => Number(r.old_created) !== 1);
    const aged = young === -1 ? rows : rows.slice(0, young);
    const doomed = aged.filter((r) => Number(r.old_delivered) === 1).map((r) => r.id);
    let deleted = 0;
    if (doomed.length > 0) {
      // Checked again: a replay may have taken a row (PENDING) or delivered it anew since the read.
      const result = await writeRows(
        this.dataSource,
        `DELETE FROM deliveries WHERE id IN (${placeholders(doomed.length)}) AND state = 'DELIVERED'
           AND COALESCE(delivered_at, created_at) < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND`,
        [...doomed, olderThanUs],
      );
      deleted = result.affectedRows;
    }
    const last = aged.at(-1);
    return {
      deleted,
      lastId: last === undefined ? afterId : last.id,
      passDone: young !== -1 || rows.length < window,
    };
  }

  /** The oldest delivery still owed (PENDING or RETRYING), for the age metric. */
  async oldestUndelivered(): Promise<Date | undefined> {
    const rows = await selectRows<OldestRow>(
      this.dataSource,
      `SELECT MIN(created_at) AS created_at FROM deliveries WHERE state IN ('PENDING', 'RETRYING')`,
    );
    return rows[0]?.created_at ?? undefined;
  }

  /** A page of a subscriber's deliveries, newest first (keyset on id). */
  async list(
    subscriberId: string,
    state: DeliveryState | undefined,
    before: string | undefined,
    limit: number,
  ): Promise<DeliveryRecord[]> {
    const params: unknown[] = [subscriberId];
    let where = 'subscriber_id = ?';
    if (state !== undefined) {
      where += ' AND state = ?';
      params.push(state);
    }
    if (before !== undefined) {
      where += ' AND id < ?';
      params.push(before);
    }
    const rows = await selectRows<DeliveryRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM deliveries WHERE ${where} ORDER BY id DESC LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toRecord);
  }

  /** At a tombstone: what still waits for a retry is kept as MISSED, for a resurrect to replay in order. */
  async keepOwed(subscriberId: string): Promise<void> {
    await writeRows(
      this.dataSource,
      `UPDATE deliveries SET state = 'MISSED', next_attempt_at = NULL, updated_at = UTC_TIMESTAMP(3)
       WHERE subscriber_id = ? AND state = 'RETRYING'`,
      [subscriberId],
    );
  }

  /** The next MISSED rows of a subscriber after `afterId`, in event order (by id). */
  async missedAfter(subscriberId: string, afterId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await selectRows<DeliveryRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM deliveries WHERE subscriber_id = ? AND state = 'MISSED' AND id > ?
       ORDER BY id LIMIT ?`,
      [subscriberId, afterId, limit],
    );
    return rows.map(toRecord);
  }

  /**
   * Settled rows (DELIVERED, DEAD_LETTERED) of a subscriber created at or after `since`, from `afterId`,
   * marked PENDING under a lease for a replay; returns them as jobs of a fresh first attempt.
   */
  async takeForReplay(
    subscriberId: string,
    since: Date,
    afterId: string,
    limit: number,
    leaseMs: number,
  ): Promise<DeliveryJob[]> {
    const rows = await selectRows<DeliveryRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM deliveries
       WHERE subscriber_id = ? AND state IN ('DELIVERED', 'DEAD_LETTERED') AND id > ? AND created_at >= ?
       ORDER BY id LIMIT ?`,
      [subscriberId, afterId, since, limit],
    );
    const taken = await this.reopen(
      rows.map((r) => r.id),
      leaseMs,
    );
    const firstAttemptAt = new Date().toISOString();
    return rows.filter((r) => taken.has(r.id)).map((r) => toJob(r, { attempt: 1, firstAttemptAt }));
  }

  /**
   * Delivered or dead-lettered rows to be attempted again (a replay): PENDING under a fresh lease;
   * returns the ids taken. Rows in another state (owed, or taken by another replay) are left alone.
   */
  async reopen(ids: readonly string[], leaseMs: number): Promise<Set<string>> {
    return this.leaseFrom(ids, leaseMs, ['DELIVERED', 'DEAD_LETTERED']);
  }

  /** Rows of the given ids in one of `from` made PENDING under a fresh lease; returns the ids PENDING now. */
  private async leaseFrom(
    ids: readonly string[],
    leaseMs: number,
    from: readonly DeliveryState[],
  ): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    await writeRows(
      this.dataSource,
      `UPDATE deliveries SET state = 'PENDING', next_attempt_at = UTC_TIMESTAMP(3) + INTERVAL ? MICROSECOND,
         updated_at = UTC_TIMESTAMP(3)
       WHERE id IN (${placeholders(ids.length)}) AND state IN (${placeholders(from.length)})`,
      [leaseMs * 1000, ...ids, ...from],
    );
    const rows = await selectRows<IdRow>(
      this.dataSource,
      `SELECT id FROM deliveries WHERE id IN (${placeholders(ids.length)}) AND state = 'PENDING'`,
      ids,
    );
    return new Set(rows.map((r) => r.id));
  }
}

function toRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    subscriberId: row.subscriber_id,
    eventId: row.event_id,
    eventType: row.event_type,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toKeyRow(row: StoredKeyRow): DeliveryKeyRow {
  return {
    id: row.id,
    subscriberId: row.subscriber_id,
    eventId: row.event_id,
    state: row.state,
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}

/** A row as a job to attempt: its `attempt`-th attempt, first attempted at `firstAttemptAt`. */
function toJob(
  row: DeliveryRow,
  at: { readonly attempt: number; readonly firstAttemptAt: string },
): DeliveryJob {
  return {
    deliveryId: row.id,
    subscriberId: row.subscriber_id,
    eventId: row.event_id,
    eventType: row.event_type,
    payload: row.payload,
    attempt: at.attempt,
    firstAttemptAt: at.firstAttemptAt,
  };
}
