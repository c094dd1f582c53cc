import { Injectable } from '@nestjs/common';
import type { RunEventView, RunLifecycleEvent, RunLifecycleV1, RunState } from '@ums/contracts';
import { selectRows, type SqlRunner, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import { type RunCounterColumns, runCountersOf } from './run.view';

const EVENT_COLUMNS = `e.id, e.run_id, e.campaign_id, e.event, e.state, e.previous_state, e.reason, e.total,
  e.pending, e.sending, e.sent, e.delivered, e.read_count, e.failed, e.unknown, e.skipped, e.occurred_at`;

/** A `run_events` row as EVENT_COLUMNS selects it: BIGINT columns (the ids and counters) are strings. */
interface RunEventRow extends RunCounterColumns {
  readonly id: string;
  readonly run_id: string;
  readonly campaign_id: string;
  readonly event: RunLifecycleEvent;
  readonly state: RunState;
  readonly previous_state: RunState;
  readonly reason: string | null;
  readonly occurred_at: Date;
}

/** An unpublished event with its row id, for the relay to stamp once Kafka has it. */
export interface OutboxEvent {
  readonly id: string;
  readonly value: RunLifecycleV1;
}

/** The run_events outbox (written by whoever changes a run's state: recordRunEvents) and the runs' history. */
@Injectable()
export class RunEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The oldest events not published yet, in id order, with their campaign's tenant (a plain read: the
   * writers lock no campaign). A run's events are in id order and committed in that order: each is
   * written under the run's row lock, which the next transition waits for.
   */
  async unpublished(runner: SqlRunner, limit: number): Promise<OutboxEvent[]> {
    const rows = await selectRows<RunEventRow & { readonly tenant_id: string }>(
      runner,
      `SELECT ${EVENT_COLUMNS}, c.tenant_id
         FROM run_events e JOIN campaigns c ON c.id = e.campaign_id
        WHERE e.published_at IS NULL ORDER BY e.id LIMIT ?`,
      [limit],
    );
    return rows.map((row) => ({
      id: row.id,
      value: {
        eventId: eventIdOf(row),
        tenantId: row.tenant_id,
        campaignId: row.campaign_id,
        runId: row.run_id,
        event: row.event,
        state: row.state,
        previousState: row.previous_state,
        counters: runCountersOf(row),
        ...(row.reason === null ? {} : { reason: row.reason }),
        occurredAt: row.occurred_at.toISOString(),
      },
    }));
  }

  async markPublished(runner: SqlRunner, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await writeRows(runner, 'UPDATE run_events SET published_at = UTC_TIMESTAMP(3) WHERE id IN (?)', [ids]);
  }

  /** A run's events after `after`, oldest first (the caller checked that the run is the tenant's). */
  async listOfRun(runId: string, after: string, limit: number): Promise<RunEventView[]> {
    const rows = await selectRows<RunEventRow>(
      this.dataSource,
      `SELECT ${EVENT_COLUMNS} FROM run_events e WHERE e.run_id = ? AND e.id > ? ORDER BY e.id LIMIT ?`,
      [runId, after, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      eventId: eventIdOf(row),
      event: row.event,
      state: row.state,
      previousState: row.previous_state,
      reason: row.reason,
      counters: runCountersOf(row),
      occurredAt: row.occurred_at.toISOString(),
    }));
  }
}

/** Stable per transition: the same row published again carries the same id. */
function eventIdOf(row: RunEventRow): string {
  return `run-${row.run_id}-${row.id}`;
}
