import { Injectable } from '@nestjs/common';
import type { LiveRunSummary, RunRateSecond, RunSample, RunState } from '@ums/contracts';
import { selectRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import { type RunCounterColumns, runCountersOf } from '../runs/run.view';

const COUNTERS =
  'r.total, r.pending, r.sending, r.sent, r.delivered, r.read_count, r.failed, r.unknown, r.skipped';

interface LatestRunRow extends RunCounterColumns {
  readonly id: string;
  readonly campaign_id: string;
  readonly state: RunState;
}

/** A run's state and counters, with its credential's row of `credential_rate_seconds` (all NULL without one). */
interface RunSampleRow extends RunCounterColumns {
  readonly state: RunState;
  readonly rate: number | null;
  readonly accepted: number | null;
  readonly congested: number | null;
  readonly errors_5xx: number | null;
  readonly timeouts: number | null;
  readonly decreases: number | null;
}

/** What the live topics read each second: one statement per topic and tick. */
@Injectable()
export class LiveRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The latest run (the highest id) of each of the campaigns, by campaign id; none for those without. */
  async latestRuns(campaignIds: readonly string[]): Promise<Map<string, LiveRunSummary>> {
    if (campaignIds.length === 0) return new Map();
    const rows = await selectRows<LatestRunRow>(
      this.dataSource,
      `SELECT r.id, r.campaign_id, r.state, ${COUNTERS}
         FROM runs r
         JOIN (SELECT campaign_id, MAX(id) AS id FROM runs WHERE campaign_id IN (?) GROUP BY campaign_id) latest
           ON latest.id = r.id`,
      [campaignIds],
    );
    return new Map(
      rows.map((row) => [
        row.campaign_id,
        { id: String(row.id), state: row.state, counters: runCountersOf(row) },
      ]),
    );
  }

  /**
   * The run's sample at `at`: its state and cumulative counters, and what its campaign's credential's
   * rate limiter did in the last complete second by the database's clock (the row of the second before
   * the current one), or undefined when the run is gone. Tenants were checked when the stream opened.
   */
  async runSample(campaignId: string, runId: string, at: Date): Promise<RunSample | undefined> {
    const rows = await selectRows<RunSampleRow>(
      this.dataSource,
      `SELECT r.state, ${COUNTERS},
              s.rate, s.accepted, s.congested, s.errors_5xx, s.timeouts, s.decreases
         FROM runs r
         JOIN campaigns c ON c.id = r.campaign_id
         LEFT JOIN credential_rate_seconds s
           ON s.credential_id = c.credential_id AND s.tenant_id = c.tenant_id
          AND s.second_at = UTC_TIMESTAMP() - INTERVAL 1 SECOND
        WHERE r.id = ? AND r.campaign_id = ?`,
      [runId, campaignId],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return { at: at.toISOString(), state: row.state, counters: runCountersOf(row), rate: rateOf(row) };
  }
}

function rateOf(row: RunSampleRow): RunRateSecond | null {
  if (row.rate === null) return null;
  return {
    rate: Number(row.rate),
    accepted: Number(row.accepted ?? 0),
    congested: Number(row.congested ?? 0),
    errors5xx: Number(row.errors_5xx ?? 0),
    timeouts: Number(row.timeouts ?? 0),
    decreases: Number(row.decreases ?? 0),
  };
}
