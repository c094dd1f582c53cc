import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { selectRows, writeRows } from '../mysql/typed-rows';

/** Which request a key names: the tenant's key on one route. */
export interface IdempotencyTarget {
  readonly tenantId: string;
  /**
   * `METHOD /path` as the route is declared (`POST /v1/campaigns`), or as requested for a route with
   * path parameters (`POST /v1/campaigns/cmp_1/test-sends`): idempotencyRouteOf.
   */
  readonly route: string;
  readonly key: string;
}

/** A new claim on a key: the request's fingerprint and who holds it. */
export interface IdempotencyClaim {
  readonly requestHash: string;
  /** A token of the request that claimed the key: only it completes or releases the row. */
  readonly claim: string;
  readonly ttlSeconds: number;
}

export enum IdempotencyState {
  InProgress = 'IN_PROGRESS',
  Completed = 'COMPLETED',
}

/** A key's row, with what the database clock says of it. */
export interface IdempotencyRecord {
  readonly requestHash: string;
  readonly state: IdempotencyState;
  readonly status: number | null;
  /** The sealed answer of a COMPLETED request. */
  readonly response: string | null;
  /** Past its expiry: it names nothing any more, and may be claimed anew. */
  readonly expired: boolean;
  /** IN_PROGRESS for longer than the lease: its request died; it may be claimed anew. */
  readonly abandoned: boolean;
}

interface IdempotencyRow {
  readonly request_hash: string;
  readonly state: string;
  readonly status: number | null;
  readonly response: string | null;
  readonly expired: number | string;
  readonly abandoned: number | string;
}

const PK = 'tenant_id = ? AND route = ? AND idem_key = ?';

function pk(target: IdempotencyTarget): unknown[] {
  return [target.tenantId, target.route, target.key];
}

/** The idempotency_keys table: one short statement per call, by primary key (expiry: by its index). */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts an IN_PROGRESS row; false when the key already has one (whatever its state). */
  async insert(target: IdempotencyTarget, claim: IdempotencyClaim): Promise<boolean> {
    const result = await writeRows(
      this.dataSource,
      `INSERT IGNORE INTO idempotency_keys (tenant_id, route, idem_key, request_hash, state, claim, created_at,
         expires_at)
       VALUES (?, ?, ?, ?, 'IN_PROGRESS', ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL ? SECOND)`,
      [...pk(target), claim.requestHash, claim.claim, claim.ttlSeconds],
    );
    return result.affectedRows === 1;
  }

  /** The key's row; `leaseSeconds` is how long an IN_PROGRESS row may stay so before it counts as abandoned. */
  async find(target: IdempotencyTarget, leaseSeconds: number): Promise<IdempotencyRecord | undefined> {
    const [row] = await selectRows<IdempotencyRow>(
      this.dataSource,
      `SELECT request_hash, state, status, response, expires_at <= UTC_TIMESTAMP(3) AS expired,
              (state = 'IN_PROGRESS' AND created_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND) AS abandoned
         FROM idempotency_keys WHERE ${PK}`,
      [leaseSeconds, ...pk(target)],
    );
    if (row === undefined) return undefined;
    return {
      requestHash: row.request_hash,
      state: row.state as IdempotencyState,
      status: row.status === null ? null : Number(row.status),
      response: row.response,
      expired: Number(row.expired) === 1,
      abandoned: Number(row.abandoned) === 1,
    };
  }

  /**
   * Claims an expired or abandoned row for a new request, in one statement: the conditions are checked
   * again under the row lock, so of two requests taking the same row over, one wins.
   */
  async takeOver(target: IdempotencyTarget, claim: IdempotencyClaim, leaseSeconds: number): Promise<boolean> {
    const result = await writeRows(
      this.dataSource,
      `UPDATE idempotency_keys
          SET request_hash = ?, state = 'IN_PROGRESS', claim = ?, status = NULL, response = NULL,
              created_at = UTC_TIMESTAMP(3), expires_at = UTC_TIMESTAMP(3) + INTERVAL ? SECOND
        WHERE ${PK} AND (expires_at <= UTC_TIMESTAMP(3)
              OR (state = 'IN_PROGRESS' AND created_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND))`,
      [claim.requestHash, claim.claim, claim.ttlSeconds, ...pk(target), leaseSeconds],
    );
    return result.affectedRows === 1;
  }

  /** Stores the answer of the claiming request; false when the claim was lost (taken over meanwhile). */
  async complete(
    target: IdempotencyTarget,
    claim: string,
    answer: { readonly status: number; readonly response: string },
  ): Promise<boolean> {
    const result = await writeRows(
      this.dataSource,
      `UPDATE idempotency_keys SET state = 'COMPLETED', status = ?, response = ?
        WHERE ${PK} AND claim = ? AND state = 'IN_PROGRESS'`,
      [answer.status, answer.response, ...pk(target), claim],
    );
    return result.affectedRows === 1;
  }

  /** Deletes the claiming request's row (it failed): the key may be used again at once. */
  async release(target: IdempotencyTarget, claim: string): Promise<void> {
    await writeRows(
      this.dataSource,
      `DELETE FROM idempotency_keys WHERE ${PK} AND claim = ? AND state = 'IN_PROGRESS'`,
      [...pk(target), claim],
    );
  }

  /** Deletes up to `limit` expired rows, oldest expiry first (idx_idempotency_keys_expires); returns how many. */
  async pruneExpired(limit: number): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      'DELETE FROM idempotency_keys WHERE expires_at < UTC_TIMESTAMP(3) ORDER BY expires_at LIMIT ?',
      [limit],
    );
    return result.affectedRows;
  }
}
