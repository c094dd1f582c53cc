import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RunsRepository } from '../runs/runs.repository';

type Row = Record<string, unknown>;

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
    const rows = (await manager.query(
      `SELECT id, cron_expression, time_zone, next_fire_at FROM campaigns
        WHERE state = 'ACTIVE' AND schedule_kind = 'cron' AND next_fire_at <= ?
        ORDER BY next_fire_at LIMIT ? FOR UPDATE SKIP LOCKED`,
      [now, limit],
    )) as Row[];
    return rows.map((row) => ({
      campaignId: String(row['id']),
      cron: String(row['cron_expression']),
      timeZone: String(row['time_zone']),
      nextFireAt: row['next_fire_at'] as Date,
    }));
  }

  async setNextFire(manager: EntityManager, campaignId: string, nextFireAt: Date): Promise<void> {
    await manager.query('UPDATE campaigns SET next_fire_at = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?', [
      nextFireAt,
      campaignId,
    ]);
  }

  /** PENDING runs whose time has come, of active campaigns, oldest fire time first. */
  async lockDueRuns(manager: EntityManager, limit: number): Promise<DueRun[]> {
    const rows = (await manager.query(
      `SELECT id, campaign_id, lease_epoch FROM runs
        WHERE state = 'PENDING' AND fire_at <= UTC_TIMESTAMP(3)
          AND campaign_id IN (SELECT id FROM campaigns WHERE state = 'ACTIVE')
        ORDER BY fire_at, id LIMIT ? FOR UPDATE SKIP LOCKED`,
      [limit],
    )) as Row[];
    if (rows.length === 0) return [];
    const tenantOf = await this.runs.tenantsOf(
      manager,
      rows.map((row) => String(row['campaign_id'])),
    );
    return rows.map((row) => ({
      runId: String(row['id']),
      campaignId: String(row['campaign_id']),
      tenantId: tenantOf.get(String(row['campaign_id'])) as string,
      epoch: Number(row['lease_epoch']),
    }));
  }

  /** PENDING -> SCHEDULED at a new epoch; the checkpoint clock starts so a lost request is re-sent. */
  async markScheduled(manager: EntityManager, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await manager.query(
      `UPDATE runs SET state = 'SCHEDULED', lease_epoch = lease_epoch + 1, lease_owner = NULL,
              checkpoint_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE id IN (?)`,
      [runIds],
    );
  }
}
