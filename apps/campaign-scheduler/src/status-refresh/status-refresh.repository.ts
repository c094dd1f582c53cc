import { Injectable } from '@nestjs/common';
import { MessageStatus } from '@ums/contracts';
import { messageTime, NEVER_SQL, selectRows, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';

interface RequestRow {
  readonly requested_at: Date;
  readonly finished_at: Date | null;
  readonly settled_sent: number;
  readonly settled_delivered: number;
  readonly settled_read: number;
  readonly settled_failed: number;
  readonly settled_not_received: number;
  readonly unresolved: number;
}

interface UnsettledRow {
  readonly state: string;
  readonly n: number | string;
}

export interface RefreshRequestRecord {
  readonly requestedAt: Date;
  readonly finishedAt: Date | null;
  readonly settled: {
    readonly sent: number;
    readonly delivered: number;
    readonly read: number;
    readonly failed: number;
    readonly notReceived: number;
  };
  readonly unresolved: number;
}

/** Operators' status refresh requests (served by the senders) and the counts a run's answer shows. */
@Injectable()
export class StatusRefreshRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records a request for the run (with its campaign's tenant), unless one is still open: the senders serve that one. */
  async request(runId: string, requestedBy: string): Promise<void> {
    await writeRows(
      this.dataSource,
      `INSERT INTO status_refresh_requests (run_id, tenant_id, requested_by, requested_at)
       SELECT r.id, c.tenant_id, ?, UTC_TIMESTAMP(3) FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.id = ? AND NOT EXISTS (SELECT 1 FROM status_refresh_requests
                                        WHERE run_id = ? AND finished_at = ${NEVER_SQL})`,
      [requestedBy.slice(0, 128), runId, runId],
    );
  }

  async latest(runId: string): Promise<RefreshRequestRecord | undefined> {
    const [row] = await selectRows<RequestRow>(
      this.dataSource,
      `SELECT requested_at, ${messageTime('finished_at')} AS finished_at, settled_sent, settled_delivered,
              settled_read, settled_failed, settled_not_received, unresolved
         FROM status_refresh_requests WHERE run_id = ? ORDER BY id DESC LIMIT 1`,
      [runId],
    );
    if (row === undefined) return undefined;
    return {
      requestedAt: row.requested_at,
      finishedAt: row.finished_at,
      settled: {
        sent: Number(row.settled_sent),
        delivered: Number(row.settled_delivered),
        read: Number(row.settled_read),
        failed: Number(row.settled_failed),
        notReceived: Number(row.settled_not_received),
      },
      unresolved: Number(row.unresolved),
    };
  }

  /** The run's UNKNOWN rows, and its SENT rows claimed more than `sentAfterMs` ago (idx_messages_run_state). */
  async unsettled(
    runId: string,
    sentAfterMs: number,
  ): Promise<{ unknown: number; sentWithoutCallback: number }> {
    const rows = await selectRows<UnsettledRow>(
      this.dataSource,
      `SELECT state, COUNT(*) AS n FROM messages FORCE INDEX (idx_messages_run_state)
        WHERE run_id = ? AND (state = ? OR (state = ? AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)))
        GROUP BY state`,
      [runId, MessageStatus.Unknown, MessageStatus.Sent, sentAfterMs * 1000],
    );
    const count = (state: MessageStatus): number => Number(rows.find((r) => r.state === state)?.n ?? 0);
    return { unknown: count(MessageStatus.Unknown), sentWithoutCallback: count(MessageStatus.Sent) };
  }
}
