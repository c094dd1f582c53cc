import { Injectable } from '@nestjs/common';
import { RunPauseReason, RunState } from '@ums/contracts';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import type { LockedRun } from '../runs/runs.repository';

interface LockedRunRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly state: RunState;
  readonly lease_epoch: number;
  readonly tenant_id: string;
}

interface TenantRow {
  readonly tenant_id: string;
}

/** Which paused runs to lock: a tenant's, for one reason, on one channel or any. */
export interface PausedRunsSelection {
  readonly tenantId: string;
  readonly reason: RunPauseReason;
  readonly channel?: string;
  readonly limit: number;
}

/**
 * Runs a sender paused (`pause_reason` set), found through idx_runs_state_fire (state = PAUSED: few
 * rows) and their campaign's tenant and channel; and the quota usage rows the sweeper prunes.
 */
@Injectable()
export class PausedRunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The runs selected, locked in the caller's transaction, as RunsService's actions take them. */
  async lock(manager: EntityManager, selection: PausedRunsSelection): Promise<LockedRun[]> {
    const rows = await selectRows<LockedRunRow>(
      manager,
      `SELECT r.id, r.campaign_id, r.state, r.lease_epoch, c.tenant_id
         FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.state = ? AND r.pause_reason = ? AND c.tenant_id = ?
              ${selection.channel === undefined ? '' : 'AND c.channel = ?'}
        ORDER BY r.id LIMIT ? FOR UPDATE`,
      [
        RunState.Paused,
        selection.reason,
        selection.tenantId,
        ...(selection.channel === undefined ? [] : [selection.channel]),
        selection.limit,
      ],
    );
    return rows.map((row) => ({
      id: String(row.id),
      campaignId: row.campaign_id,
      tenantId: row.tenant_id,
      state: row.state,
      epoch: Number(row.lease_epoch),
    }));
  }

  /**
   * Tenants with runs paused for quota whose current UTC day and month are both under their caps
   * (a new period began, or a cap was raised or lifted).
   */
  async tenantsUnderQuota(periods: { day: string; month: string }, limit: number): Promise<string[]> {
    const rows = await selectRows<TenantRow>(
      this.dataSource,
      `SELECT t.tenant_id FROM (
           SELECT DISTINCT c.tenant_id FROM runs r JOIN campaigns c ON c.id = r.campaign_id
            WHERE r.state = ? AND r.pause_reason = ?) t
         LEFT JOIN credit_quotas q ON q.tenant_id = t.tenant_id
         LEFT JOIN credit_quota_usage d ON d.tenant_id = t.tenant_id AND d.period = ?
         LEFT JOIN credit_quota_usage m ON m.tenant_id = t.tenant_id AND m.period = ?
        WHERE (q.daily_limit IS NULL OR COALESCE(d.used, 0) < q.daily_limit)
          AND (q.monthly_limit IS NULL OR COALESCE(m.used, 0) < q.monthly_limit)
        ORDER BY t.tenant_id LIMIT ?`,
      [RunState.Paused, RunPauseReason.QuotaExhausted, periods.day, periods.month, limit],
    );
    return rows.map((row) => row.tenant_id);
  }

  /** How many runs are paused for want of credits (the ums_runs_paused_for_credits gauge). */
  async pausedForCredits(): Promise<number> {
    const rows = await selectRows<{ n: string | number }>(
      this.dataSource,
      'SELECT COUNT(*) AS n FROM runs WHERE state = ? AND pause_reason = ?',
      [RunState.Paused, RunPauseReason.CreditsExhausted],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Deletes at most `limit` usage rows of days before `floor.day` and months before `floor.month`;
   * returns how many. Keys sort as their periods (`D2026-09-27` < `D2026-11-28`).
   */
  async pruneUsage(floor: { day: string; month: string }, limit: number): Promise<number> {
    const result = await writeRows(
      this.dataSource,
      `DELETE FROM credit_quota_usage
        WHERE (period LIKE 'D%' AND period < ?) OR (period LIKE 'M%' AND period < ?)
        LIMIT ?`,
      [floor.day, floor.month, limit],
    );
    return result.affectedRows;
  }
}
