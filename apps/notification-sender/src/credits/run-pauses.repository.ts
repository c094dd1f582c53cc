import { Injectable } from '@nestjs/common';
import { RunLifecycleEvent, type RunPauseReason, RunState } from '@ums/contracts';
import { runLifecycleEventOf } from '@ums/domain';
import { selectRows, type SqlRunner, writeRows } from '@ums/platform';

interface IdRow {
  readonly id: string;
}

/**
 * Pauses RUNNING runs whose messages the tenant's credits or quota could not cover, as the
 * scheduler's pause does (RUNNING -> PAUSED, the lease and epoch kept), with `pause_reason` set and
 * the `paused` lifecycle event in the run_events outbox, in the caller's transaction (the claim's).
 * The held messages stay PENDING; the scheduler's resume re-publishes them. Runs are locked in id
 * order after the claim's message and account rows.
 */
@Injectable()
export class RunPausesRepository {
  /** Pauses those of `runIds` still RUNNING; returns the ids paused. */
  async pause(manager: SqlRunner, runIds: readonly string[], reason: RunPauseReason): Promise<string[]> {
    if (runIds.length === 0) return [];
    const running = await selectRows<IdRow>(
      manager,
      `SELECT id FROM runs WHERE id IN (?) AND state = 'RUNNING' ORDER BY id FOR UPDATE`,
      [[...new Set(runIds)]],
    );
    const ids = running.map((row) => row.id);
    if (ids.length === 0) return [];
    await writeRows(
      manager,
      `UPDATE runs SET state = 'PAUSED', pause_reason = ?, updated_at = UTC_TIMESTAMP(3) WHERE id IN (?)`,
      [reason, ids],
    );
    const event = runLifecycleEventOf(RunState.Running, RunState.Paused) ?? RunLifecycleEvent.Paused;
    await writeRows(
      manager,
      `INSERT INTO run_events (run_id, campaign_id, event, state, previous_state, reason, total, pending, sending,
                               sent, delivered, read_count, failed, unknown, skipped, occurred_at)
       SELECT id, campaign_id, ?, state, 'RUNNING', pause_reason, total, pending, sending, sent, delivered,
              read_count, failed, unknown, skipped, UTC_TIMESTAMP(3)
         FROM runs WHERE id IN (?) ORDER BY id`,
      [event, ids],
    );
    return ids;
  }
}
