import { Injectable } from '@nestjs/common';
import { RunLifecycleEvent, RunState } from '@ums/contracts';
import { recordRunEvents, selectRows, writeRows } from '@ums/platform';
import type { EntityManager } from 'typeorm';
import { RunsRepository } from '../runs/runs.repository';

/**
 * A due cron campaign. Neither column is NULL here: `next_fire_at <= ?` passes no NULL, and
 * chk_campaigns_schedule requires cron_expression of a cron campaign.
 */
interface DueCronRow {
  readonly id: string;
  readonly cron_expression: string;
  readonly time_zone: string;
  readonly next_fire_at: Date;
}

interface DueRunRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly lease_epoch: number;
}

export interface DueCron {
  readonly campaignId: string;
  readonly cron: string;
  readonly timeZone: string;
  readonly nextFireAt: Date;
}

export interface DueRun {
  readonly runId: string;
  readonly campaignId: string;
  readonly tenantId: string;
  readonly epoch: number;
}

/**
 * Locking reads of due work. SKIP LOCKED lets every scheduler replica take a disjoint share, and
 * the locks last only for the caller's transaction.
 */
@Injectable()
export class SchedulingRepository {
  constructor(private readonly runs: RunsRepository) {}

  async lockDueCrons(manager: EntityManager, now: Date, limit: number): Promise<DueCron[]> {
    const rows = await selectRows<DueCronRow>(
      manager,
      `SELECT id, cron_expression, time_zone, next_fire_at FROM campaigns
        WHERE state = 'ACTIVE' AND schedule_kind = 'cron' AND next_fire_at <= ?
        ORDER BY next_fire_at LIMIT ? FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map((row) => ({
      campaignId: row.id,
      cron: row.cron_expression,
      timeZone: row.time_zone,
      nextFireAt: row.next_fire_at,
    }));
  }

  async setNextFire(manager: EntityManager, campaignId: string, nextFireAt: Date): Promise<void> {
    await writeRows(
      manager,
      'UPDATE campaigns SET next_fire_at = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?',
      [nextFireAt, campaignId],
    );
  }

  /**
   * PENDING runs whose time has come, of active campaigns: the campaign's priority first (higher
   * first), then the oldest fire time. idx_runs_state_fire finds the due runs (state = 'PENDING' AND
   * fire_at <= now); no index serves the order, which needs the campaign's priority, so the due set is
   * sorted (with one primary-key lookup of its campaign per run). The due set is small: a run is due
   * only from its fire time until a replica's next tick schedules it (SCHEDULER_BATCH per tick), so
   * the sort runs over about one tick's worth of runs. It also locks the whole due set (the rows
   * read before the sort) until the transaction ends: the other replicas skip them for that tick.
   * The priority is read by a subquery, not a join, so that the campaigns' rows are not locked.
   */
  async lockDueRuns(manager: EntityManager, limit: number): Promise<DueRun[]> {
    const rows = await selectRows<DueRunRow>(
      manager,
      `SELECT id, campaign_id, lease_epoch FROM runs
        WHERE state = 'PENDING' AND fire_at <= UTC_TIMESTAMP(3)
          AND campaign_id IN (SELECT id FROM campaigns WHERE state = 'ACTIVE')
        ORDER BY (SELECT c.priority FROM campaigns c WHERE c.id = runs.campaign_id) DESC, fire_at, id
        LIMIT ? FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (rows.length === 0) return [];
    const tenantOf = await this.runs.tenantsOf(
      manager,
      rows.map((row) => row.campaign_id),
    );
    return rows.map((row) => ({
      runId: row.id,
      campaignId: row.campaign_id,
      tenantId: tenantOf.get(row.campaign_id) as string,
      epoch: row.lease_epoch,
    }));
  }

  /**
   * PENDING -> SCHEDULED at a new epoch (runs locked by lockDueRuns); the checkpoint clock starts so a
   * lost request is re-sent. Their `scheduled` events go to the outbox in the same transaction.
   */
  async markScheduled(manager: EntityManager, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await writeRows(
      manager,
      `UPDATE runs SET state = 'SCHEDULED', lease_epoch = lease_epoch + 1, lease_owner = NULL,
              checkpoint_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE id IN (?)`,
      [runIds],
    );
    await recordRunEvents(manager, {
      runIds,
      previousState: RunState.Pending,
      event: RunLifecycleEvent.Scheduled,
    });
  }
}
