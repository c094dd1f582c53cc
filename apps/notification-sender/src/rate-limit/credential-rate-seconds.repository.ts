import { Injectable } from '@nestjs/common';
import { writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { CredentialSecond } from './credential-rate-seconds.accumulator';

/** Rows per statement: a backlog after an outage goes in several statements of this size. */
export const CREDENTIAL_SECONDS_PER_STATEMENT = 1_000;

/**
 * `credential_rate_seconds`: each replica adds its figures of a second to the second's row, so a row
 * sums all replicas. The rate is the last one written, except that 0 (a replica that had seen no
 * rate) never replaces a known one.
 */
@Injectable()
export class CredentialRateSecondsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One multi-row upsert of at most CREDENTIAL_SECONDS_PER_STATEMENT rows; nothing for none. */
  async add(rows: readonly CredentialSecond[]): Promise<void> {
    if (rows.length === 0) return;
    if (rows.length > CREDENTIAL_SECONDS_PER_STATEMENT) {
      throw new RangeError(`at most ${CREDENTIAL_SECONDS_PER_STATEMENT} rows per statement`);
    }
    await writeRows(
      this.dataSource,
      `INSERT INTO credential_rate_seconds
         (credential_id, second_at, tenant_id, rate, granted, accepted, congested, errors_5xx, timeouts, decreases)
       VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON DUPLICATE KEY UPDATE
         granted = granted + VALUES(granted), accepted = accepted + VALUES(accepted),
         congested = congested + VALUES(congested), errors_5xx = errors_5xx + VALUES(errors_5xx),
         timeouts = timeouts + VALUES(timeouts), decreases = decreases + VALUES(decreases),
         rate = IF(VALUES(rate) > 0, VALUES(rate), rate)`,
      rows.flatMap((row) => [
        row.credentialId,
        new Date(row.secondMs),
        row.tenantId,
        row.rate,
        row.granted,
        row.accepted,
        row.congested,
        row.errors5xx,
        row.timeouts,
        row.decreases,
      ]),
    );
  }
}
