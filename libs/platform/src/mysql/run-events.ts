import type { RunLifecycleEvent, RunState } from '@ums/contracts';
import { type SqlRunner, writeRows } from './typed-rows';

/** Runs that made the same transition in one statement of the caller's transaction. */
export interface RunTransitions {
  readonly runIds: readonly string[];
  /** The state they left (the new one is read from the rows). */
  readonly previousState: RunState;
  readonly event: RunLifecycleEvent;
}

/**
 * Records lifecycle events in the `run_events` outbox, in the transaction that changed the runs'
 * state and right after its UPDATE (which holds the rows' locks, so the counters read here are the
 * run's at the transition and no other transition of the run can come in between). The campaign-
 * scheduler's relay publishes them once committed: nothing is announced that did not happen, and
 * nothing that happened is lost. Reads no other table, so it takes no lock beyond the runs'.
 */
export async function recordRunEvents(runner: SqlRunner, transitions: RunTransitions): Promise<void> {
  if (transitions.runIds.length === 0) return;
  await writeRows(
    runner,
    `INSERT INTO run_events (run_id, campaign_id, event, state, previous_state, reason, total, pending, sending,
                             sent, delivered, read_count, failed, unknown, skipped, occurred_at)
     SELECT id, campaign_id, ?, state, ?, CASE WHEN state = 'FAILED' THEN failure_reason END, total, pending,
            sending, sent, delivered, read_count, failed, unknown, skipped, UTC_TIMESTAMP(3)
       FROM runs WHERE id IN (?) ORDER BY id`,
    [transitions.event, transitions.previousState, transitions.runIds],
  );
}
