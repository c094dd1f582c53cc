import { Injectable } from '@nestjs/common';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';

/** One second of a credential's rate limiter (every sender replica's figures summed). */
export interface CredentialSecondRecord {
  readonly secondAt: Date;
  readonly rate: number;
  readonly granted: number;
  readonly accepted: number;
  readonly congested: number;
  readonly errors5xx: number;
  readonly timeouts: number;
  readonly decreases: number;
}

/** A `credential_rate_seconds` row as SECOND_COLUMNS selects it (INT UNSIGNED and DOUBLE: numbers). */
interface SecondRow {
  readonly second_at: Date;
  readonly rate: number;
  readonly granted: number;
  readonly accepted: number;
  readonly congested: number;
  readonly errors_5xx: number;
  readonly timeouts: number;
  readonly decreases: number;
}

const SECOND_COLUMNS = 'second_at, rate, granted, accepted, congested, errors_5xx, timeouts, decreases';

/** How far back congestion events are looked for. */
const CONGESTION_LOOKBACK_SECONDS = 86_400;

/**
 * `credential_rate_seconds`, which notification-sender replicas write (each adds its figures to a
 * second's row): a credential's series and congestion events by its primary key, and the retention
 * deletes by `idx_credential_rate_seconds_at`. Times are the database's UTC clock.
 */
@Injectable()
export class CredentialRateSecondsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The last `seconds` complete seconds (the one in progress excluded) that have a row, oldest first. */
  async series(credentialId: string, tenantId: string, seconds: number): Promise<CredentialSecondRecord[]> {
    const rows = await selectRows<SecondRow>(
      this.dataSource,
      `SELECT ${SECOND_COLUMNS} FROM credential_rate_seconds
        WHERE credential_id = ? AND tenant_id = ?
          AND second_at >= UTC_TIMESTAMP() - INTERVAL ? SECOND AND second_at < UTC_TIMESTAMP()
        ORDER BY second_at`,
      [credentialId, tenantId, seconds],
    );
    return rows.map(toRecord);
  }

  /** The seconds of [from, to) that have a row, oldest first (a run's timeline window). */
  async between(
    credentialId: string,
    tenantId: string,
    from: Date,
    to: Date,
  ): Promise<CredentialSecondRecord[]> {
    const rows = await selectRows<SecondRow>(
      this.dataSource,
      `SELECT ${SECOND_COLUMNS} FROM credential_rate_seconds
        WHERE credential_id = ? AND tenant_id = ? AND second_at >= ? AND second_at < ?
        ORDER BY second_at`,
      [credentialId, tenantId, from, to],
    );
    return rows.map(toRecord);
  }

  /** The newest second with a known rate (0 is a replica that had seen none), if any. */
  async latest(credentialId: string, tenantId: string): Promise<{ rate: number; at: Date } | undefined> {
    const rows = await selectRows<Pick<SecondRow, 'second_at' | 'rate'>>(
      this.dataSource,
      `SELECT second_at, rate FROM credential_rate_seconds
        WHERE credential_id = ? AND tenant_id = ? AND rate > 0
        ORDER BY second_at DESC LIMIT 1`,
      [credentialId, tenantId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { rate: row.rate, at: row.second_at };
  }

  /** Seconds of the last 24 hours with an AIMD decrease, newest first. */
  async congestionEvents(
    credentialId: string,
    tenantId: string,
    limit: number,
  ): Promise<CredentialSecondRecord[]> {
    const rows = await selectRows<SecondRow>(
      this.dataSource,
      `SELECT ${SECOND_COLUMNS} FROM credential_rate_seconds
        WHERE credential_id = ? AND tenant_id = ?
          AND second_at >= UTC_TIMESTAMP() - INTERVAL ? SECOND AND decreases > 0
        ORDER BY second_at DESC LIMIT ?`,
      [credentialId, tenantId, CONGESTION_LOOKBACK_SECONDS, limit],
    );
    return rows.map(toRecord);
  }

  /** Deletes at most `limit` rows of seconds older than `olderThanMs`, oldest first; returns how many. */
  async pruneOlderThan(olderThanMs: number, limit: number): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      `DELETE FROM credential_rate_seconds
        WHERE second_at < UTC_TIMESTAMP() - INTERVAL ? MICROSECOND
        ORDER BY second_at LIMIT ?`,
      [olderThanMs * 1000, limit],
    );
    return result.affectedRows;
  }
}

function toRecord(row: SecondRow): CredentialSecondRecord {
  return {
    secondAt: row.second_at,
    rate: Number(row.rate),
    granted: Number(row.granted),
    accepted: Number(row.accepted),
    congested: Number(row.congested),
    errors5xx: Number(row.errors_5xx),
    timeouts: Number(row.timeouts),
    decreases: Number(row.decreases),
  };
}
