import { Injectable } from '@nestjs/common';
import { selectRows, type TenantFilter } from '@ums/platform';
import { DataSource } from 'typeorm';
import { type StageCount, TIMELINE_STAGES, type TimelineWindow } from './timeline-window';

/** A run as its timeline needs it, with the database's clock. */
export interface TimelineRun {
  readonly id: string;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly updatedAt: Date;
  readonly credentialId: string;
  readonly tenantId: string;
  readonly now: Date;
}

interface TimelineRunRow {
  readonly id: string;
  readonly started_at: Date | null;
  readonly finished_at: Date | null;
  readonly updated_at: Date;
  readonly credential_id: string;
  readonly tenant_id: string;
  readonly now: Date;
}

/** Literals and BIGINT results are numbers or strings depending on the server (MariaDB, MySQL 8). */
interface StageCountRow {
  readonly stage: number | string;
  readonly second_offset: number | string;
  readonly n: number | string;
}

/**
 * Each message row of the run once, joined to the five stages (STRAIGHT_JOIN: messages first, so the
 * run's rows are read once, not once per stage). FORCE INDEX keeps the read to the run's rows through
 * run_id whatever share of the table the optimizer takes them for (a full scan costs every run's).
 * Each stage's time: its column, and for UNKNOWN the row's updated_at while it is in UNKNOWN. Times
 * not reached are 1970-01-01 (the messages table's NEVER) and fall outside any window; rows with none
 * of their times in the window are left out before the join.
 */
const STAGE_COUNTS_SQL = `
  SELECT t.stage, TIMESTAMPDIFF(SECOND, ?, t.at) AS second_offset, COUNT(*) AS n
    FROM (SELECT s.stage,
                 CASE s.stage WHEN 0 THEN m.sent_at WHEN 1 THEN m.delivered_at WHEN 2 THEN m.read_at
                              WHEN 3 THEN m.failed_at ELSE IF(m.state = 'UNKNOWN', m.updated_at, NULL) END AS at
            FROM messages m FORCE INDEX (idx_messages_run_state)
            STRAIGHT_JOIN (SELECT 0 AS stage UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
                           UNION ALL SELECT 4) s
           WHERE m.run_id = ?
             AND (m.sent_at >= ? OR m.delivered_at >= ? OR m.read_at >= ? OR m.failed_at >= ?
                  OR (m.state = 'UNKNOWN' AND m.updated_at >= ?))) t
   WHERE t.at >= ? AND t.at < ?
   GROUP BY t.stage, second_offset`;

/**
 * What a run's timeline reads: the run (with the tenant check) and its messages' times per second (its
 * credential's `credential_rate_seconds` rows come from CredentialRateSecondsRepository). Seconds are counted from the window's
 * start with TIMESTAMPDIFF on the stored UTC times, whatever the session's time zone.
 */
@Injectable()
export class RunTimelineRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The run of the campaign, if the campaign is the tenant's (any tenant's for null). */
  async findRun(tenant: TenantFilter, campaignId: string, runId: string): Promise<TimelineRun | undefined> {
    const rows = await selectRows<TimelineRunRow>(
      this.dataSource,
      `SELECT r.id, r.started_at, r.finished_at, r.updated_at, c.credential_id, c.tenant_id,
              UTC_TIMESTAMP(3) AS now
         FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.id = ? AND r.campaign_id = ? AND (? IS NULL OR c.tenant_id = ?)`,
      [runId, campaignId, tenant, tenant],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: String(row.id),
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      updatedAt: row.updated_at,
      credentialId: row.credential_id,
      tenantId: row.tenant_id,
      now: row.now,
    };
  }

  /** How many of the run's messages reached each stage in each second of the window. */
  async stageCounts(runId: string, window: TimelineWindow): Promise<StageCount[]> {
    const { from, to } = window;
    const rows = await selectRows<StageCountRow>(this.dataSource, STAGE_COUNTS_SQL, [
      from,
      runId,
      from,
      from,
      from,
      from,
      from,
      from,
      to,
    ]);
    return rows.flatMap((row) => {
      const stage = TIMELINE_STAGES[Number(row.stage)];
      return stage === undefined ? [] : [{ stage, offset: Number(row.second_offset), count: Number(row.n) }];
    });
  }
}
