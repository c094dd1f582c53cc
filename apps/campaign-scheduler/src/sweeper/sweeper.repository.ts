import { Injectable } from '@nestjs/common';
import { RunLifecycleEvent, RunState } from '@ums/contracts';
import { recordRunEvents, selectRows, writeRows } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { RunsRepository } from '../runs/runs.repository';

/** A stale run; checkpoint_at is not NULL (the WHERE compares it). */
interface StaleRunRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly state: RunState;
  readonly lease_epoch: number;
  readonly attempts: number;
  readonly checkpoint_at: Date;
}

interface RunOfCampaignRow {
  readonly id: string;
  readonly campaign_id: string;
}

/** TIMESTAMPDIFF is a BIGINT: a string. */
interface CheckpointAgeRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly age_us: string;
}

export interface StaleRun {
  readonly runId: string;
  readonly campaignId: string;
  /** SCHEDULED or RUNNING. */
  readonly state: RunState;
  readonly tenantId: string;
  readonly epoch: number;
  readonly attempts: number;
  readonly checkpointAt: Date;
}

export interface CheckpointAge {
  readonly runId: string;
  readonly campaignId: string;
  readonly ageSeconds: number;
}

@Injectable()
export class SweeperRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runs: RunsRepository,
  ) {}

  /**
   * Runs handed to an expander (SCHEDULED) or being expanded (RUNNING, not yet expanded) whose
   * checkpoint has not moved for the deadline, locked with SKIP LOCKED so replicas split them.
   */
  async lockStale(manager: EntityManager, deadlineMs: number, limit: number): Promise<StaleRun[]> {
    const rows = await selectRows<StaleRunRow>(
      manager,
      `SELECT r.id, r.campaign_id, r.state, r.lease_epoch, r.attempts, r.checkpoint_at FROM runs r
        WHERE r.state IN ('SCHEDULED', 'RUNNING') AND r.expanded_at IS NULL
          AND r.checkpoint_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)
        ORDER BY r.checkpoint_at LIMIT ? FOR UPDATE SKIP LOCKED`,
      [deadlineMs * 1000, limit],
    );
    if (rows.length === 0) return [];
    const tenantOf = await this.runs.tenantsOf(
      manager,
      rows.map((row) => row.campaign_id),
    );
    return rows.map((row) => ({
      runId: row.id,
      campaignId: row.campaign_id,
      state: row.state,
      tenantId: tenantOf.get(row.campaign_id) as string,
      epoch: row.lease_epoch,
      attempts: row.attempts,
      checkpointAt: row.checkpoint_at,
    }));
  }

  /** New epoch, lease freed, attempt counted; the checkpoint clock restarts for the next expander. */
  async retry(manager: EntityManager, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await writeRows(
      manager,
      `UPDATE runs SET lease_epoch = lease_epoch + 1, lease_owner = NULL, attempts = attempts + 1,
              checkpoint_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE id IN (?)`,
      [runIds],
    );
  }

  /**
   * Retries exhausted: FAILED with the reason, and the epoch bumped so a late expander is fenced out.
   * The run is locked by lockStale; its `failed` event goes to the outbox in the same transaction.
   */
  async fail(manager: EntityManager, run: StaleRun, reason: string): Promise<void> {
    await writeRows(
      manager,
      `UPDATE runs SET state = 'FAILED', failure_reason = ?, lease_epoch = lease_epoch + 1, lease_owner = NULL,
              finished_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [reason.slice(0, 512), run.runId],
    );
    await recordRunEvents(manager, {
      runIds: [run.runId],
      previousState: run.state,
      event: RunLifecycleEvent.Failed,
    });
  }

  /**
   * Expanded RUNNING runs with no message left to send (none PENDING or SENDING) become COMPLETED;
   * a one-off campaign whose runs are all finished becomes COMPLETED too. Returns the runs completed.
   */
  async completeFinishedRuns(limit: number): Promise<string[]> {
    const candidates = await selectRows<RunOfCampaignRow>(
      this.dataSource,
      `SELECT r.id, r.campaign_id FROM runs r
        WHERE r.state = 'RUNNING' AND r.expanded_at IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.run_id = r.id AND m.state IN ('PENDING', 'SENDING'))
        LIMIT ?`,
      [limit],
    );
    const completed: string[] = [];
    for (const { id: runId, campaign_id: campaignId } of candidates) {
      await this.dataSource.transaction(async (manager) => {
        // Re-checked under the lock: a retry may have reopened the run meanwhile.
        const result = await writeRows(
          manager,
          `UPDATE runs SET state = 'COMPLETED', finished_at = UTC_TIMESTAMP(3), lease_owner = NULL,
                  updated_at = UTC_TIMESTAMP(3)
            WHERE id = ? AND state = 'RUNNING' AND expanded_at IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.run_id = ? AND m.state IN ('PENDING', 'SENDING'))`,
          [runId, runId],
        );
        if (result.affectedRows !== 1) return;
        completed.push(runId);
        await recordRunEvents(manager, {
          runIds: [runId],
          previousState: RunState.Running,
          event: RunLifecycleEvent.Completed,
        });
        await writeRows(
          manager,
          `UPDATE campaigns SET state = 'COMPLETED', updated_at = UTC_TIMESTAMP(3)
            WHERE id = ? AND state = 'ACTIVE' AND schedule_kind IN ('now', 'at')
              AND NOT EXISTS (SELECT 1 FROM runs WHERE campaign_id = ?
                               AND state IN ('PENDING', 'SCHEDULED', 'RUNNING', 'PAUSED'))`,
          [campaignId, campaignId],
        );
      });
    }
    return completed;
  }

  /** Checkpoint age of every run being expanded, for the metric (bounded). */
  async checkpointAges(limit: number): Promise<CheckpointAge[]> {
    const rows = await selectRows<CheckpointAgeRow>(
      this.dataSource,
      `SELECT id, campaign_id, TIMESTAMPDIFF(MICROSECOND, checkpoint_at, UTC_TIMESTAMP(3)) AS age_us FROM runs
        WHERE state IN ('SCHEDULED', 'RUNNING') AND expanded_at IS NULL AND checkpoint_at IS NOT NULL
        ORDER BY checkpoint_at LIMIT ?`,
      [limit],
    );
    return rows.map((row) => ({
      runId: row.id,
      campaignId: row.campaign_id,
      ageSeconds: Number(row.age_us) / 1e6,
    }));
  }
}
