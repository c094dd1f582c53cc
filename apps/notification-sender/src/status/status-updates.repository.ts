import { Injectable } from '@nestjs/common';
import { type FailureReason, MessageStatus } from '@ums/contracts';
import { decideStatus } from '@ums/domain';
import {
  type JsonRowsColumn,
  jsonRows,
  jsonRowsTable,
  messageTime,
  NEVER_SQL,
  providerMessageIdOf,
  selectRows,
  type SqlRunner,
  sqlDateTime,
  writeRows,
} from '@ums/platform';
import { DataSource } from 'typeorm';
import { moveCounters } from '../sending/run-counters';
import { type ChangedMessageRow, type StatusChange, statusChangeOf } from '../sending/status-change';

/** One reported status to apply, in the order consumed. */
export interface ReportedStatus {
  /** Index in the consumed chunk, so callers can tell which reports matched no message. */
  readonly index: number;
  readonly messageId: string | undefined;
  /** The provider's id; null only with `messageId` (a status refresh's NOT_RECEIVED names none). */
  readonly providerMessageId: string | null;
  readonly credentialId: string;
  readonly status: MessageStatus;
  /**
   * Compare-and-set: applied only if the locked row is still in this state (a status refresh settles
   * what it read); otherwise absorbed as `moved`.
   */
  readonly expected?: MessageStatus;
  readonly reason?: FailureReason;
  readonly errorCode?: string;
  readonly errorText?: string;
  /** ISO 8601, the provider's time of the status. */
  readonly occurredAt: string;
}

export interface StatusApplication {
  /** The changes applied, each with the provider's time of its status (`occurredAt`). */
  readonly applied: StatusChange[];
  /** Reports refused by the forward-only rule, by why. */
  readonly absorbed: Readonly<Record<AbsorbedWhy, number>>;
  /** Indexes of reports that name no message we know. */
  readonly unknown: number[];
}

/** Why a report changed nothing: the forward-only rule, or (`moved`) a compare-and-set that missed. */
export type AbsorbedWhy = 'duplicate' | 'regression' | 'terminal' | 'not-reportable' | 'moved';

/** A message row a report may name, as selected (COLUMNS). */
interface MessageRow extends ChangedMessageRow {
  readonly credential_id: string;
  readonly state: string;
  readonly provider_message_id: string | null;
}

/** A message id found by its provider id. */
interface ProviderIdRow {
  readonly message_id: string;
}

/** A column the status UPDATE sets from the rows' values; `keep`: a message time, set once (COALESCE). */
interface SetColumn extends JsonRowsColumn {
  readonly keep: boolean;
  readonly valueOf: (plan: RowPlan) => string | null | undefined;
}

interface RowPlan {
  readonly row: MessageRow;
  readonly from: MessageStatus;
  to: MessageStatus;
  providerMessageId: string | null;
  readonly times: Partial<Record<'sent_at' | 'delivered_at' | 'read_at' | 'failed_at', string>>;
  failure?: { reason?: FailureReason; errorCode?: string; errorText?: string };
}

const TIME_COLUMN: Partial<Record<MessageStatus, 'sent_at' | 'delivered_at' | 'read_at' | 'failed_at'>> = {
  [MessageStatus.Sent]: 'sent_at',
  [MessageStatus.Delivered]: 'delivered_at',
  [MessageStatus.Read]: 'read_at',
  [MessageStatus.Failed]: 'failed_at',
};

/** Columns every status UPDATE may set: the time of each state, where none is yet. */
const PROGRESS_COLUMNS: readonly SetColumn[] = [
  ...(['sent_at', 'delivered_at', 'read_at', 'failed_at'] as const).map((name): SetColumn => ({
    name,
    keep: true,
    type: 'DATETIME(3)',
    valueOf: (p: RowPlan) => p.times[name],
  })),
];

/** Columns the UPDATE of FAILED rows sets as well: why they failed. */
const FAILURE_SET_COLUMNS: readonly SetColumn[] = [
  { name: 'reason', keep: false, type: 'VARCHAR(32)', valueOf: (p: RowPlan) => p.failure?.reason ?? null },
  {
    name: 'error_code',
    keep: false,
    type: 'VARCHAR(64)',
    valueOf: (p: RowPlan) => p.failure?.errorCode ?? null,
  },
  {
    name: 'error_text',
    keep: false,
    type: 'VARCHAR(1024)',
    valueOf: (p: RowPlan) => p.failure?.errorText ?? null,
  },
];

// The locking read locks the message rows only (providerMessageIdOf is a subquery).
const COLUMNS = `m.id, m.run_id, m.campaign_id, m.tenant_id, m.channel, m.credential_id, m.recipient, m.state,
  ${providerMessageIdOf('m.id')} AS provider_message_id`;

/**
 * Applies provider-reported statuses to message rows, forward only (SENT < DELIVERED < READ;
 * FAILED terminal; UNKNOWN, SENDING and PENDING settled by the provider's word), for a whole
 * consumed chunk in one transaction: one locking read, one UPDATE per resulting state, run
 * counters moved with the rows. Duplicates and out-of-order reports change nothing.
 */
@Injectable()
export class StatusUpdatesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async apply(
    reports: readonly ReportedStatus[],
    beforeCommit: (applied: StatusApplication['applied'], manager: SqlRunner) => Promise<void> = () =>
      Promise.resolve(),
  ): Promise<StatusApplication> {
    if (reports.length === 0) return { applied: [], absorbed: absorbedNone(), unknown: [] };
    return this.dataSource.transaction(async (manager) => {
      const rows = await this.lockRows(manager, reports);
      const { plans, applied, absorbed, unknown } = planReports(rows, reports);
      // Run rows are updated in run id order, as message rows are locked in id order: concurrent
      // chunks then take their locks in one order and do not deadlock on each other.
      const changed = [...plans.values()]
        .filter((plan) => plan.to !== plan.from)
        .sort((x, y) => compareIds(x.row.run_id, y.row.run_id));
      await this.updateRows(manager, changed);
      await this.nameRows(manager, changed);
      await moveCounters(
        manager,
        changed.map((plan) => ({ runId: plan.row.run_id, from: plan.from, to: plan.to })),
      );
      // Published while the rows are still locked: a crash before the commit leaves them as they
      // were, the chunk is consumed again and publishes the same event ids; none goes unannounced.
      await beforeCommit(applied, manager);
      return { applied, absorbed, unknown };
    });
  }

  /** The rows the reports name, locked, in id order (a fixed order keeps concurrent appliers from deadlocking). */
  private async lockRows(manager: SqlRunner, reports: readonly ReportedStatus[]): Promise<MessageRow[]> {
    const ids = [...new Set(reports.flatMap((r) => (r.messageId === undefined ? [] : [r.messageId])))];
    const providerIds = [
      ...new Set(
        reports.flatMap((r) =>
          r.messageId === undefined && r.providerMessageId !== null ? [r.providerMessageId] : [],
        ),
      ),
    ];
    const found = new Map<string, MessageRow>();
    if (providerIds.length > 0) {
      const rows = await selectRows<ProviderIdRow>(
        manager,
        'SELECT message_id FROM message_provider_ids WHERE provider_message_id IN (?)',
        [providerIds],
      );
      for (const row of rows) ids.push(row.message_id);
    }
    if (ids.length > 0) {
      const sorted = [...new Set(ids)].sort(compareIds);
      const rows = await selectRows<MessageRow>(
        manager,
        `SELECT ${COLUMNS} FROM messages m FORCE INDEX (PRIMARY) WHERE m.id IN (?) ORDER BY m.id FOR UPDATE`,
        [sorted],
      );
      for (const row of rows) found.set(row.id, row);
    }
    return [...found.values()];
  }

  /**
   * One UPDATE per resulting state, joined to the rows' own values, passed as one JSON document and
   * read with JSON_TABLE: linear in the rows, one query block. A derived table of one SELECT per row
   * (UNION ALL) cost MariaDB 19 µs a row to parse and plan (6 µs this way), and CASE id WHEN ... lists
   * are scanned for every row (quadratic).
   */
  private async updateRows(manager: SqlRunner, plans: readonly RowPlan[]): Promise<void> {
    const byState = new Map<MessageStatus, RowPlan[]>();
    for (const plan of plans) {
      const group = byState.get(plan.to);
      if (group === undefined) byState.set(plan.to, [plan]);
      else group.push(plan);
    }
    for (const [state, group] of byState) {
      const candidates =
        state === MessageStatus.Failed ? [...PROGRESS_COLUMNS, ...FAILURE_SET_COLUMNS] : PROGRESS_COLUMNS;
      const columns = candidates.filter(
        (column) => group.some((plan) => column.valueOf(plan) != null) || !column.keep,
      );
      const tableColumns: JsonRowsColumn[] = [{ name: 'id', type: 'BIGINT UNSIGNED' }, ...columns];
      const values = group.map((plan) => {
        const row: Record<string, string | null | undefined> = { id: plan.row.id };
        for (const column of columns) row[column.name] = column.valueOf(plan);
        return row;
      });
      // A kept column is a message time: NEVER_SQL until set, and set once.
      const sets = [
        'm.state = ?',
        ...columns.map((c) =>
          c.keep
            ? `m.${c.name} = COALESCE(${messageTime(`m.${c.name}`)}, v.${c.name}, ${NEVER_SQL})`
            : `m.${c.name} = v.${c.name}`,
        ),
        'm.updated_at = UTC_TIMESTAMP(3)',
      ];
      await writeRows(
        manager,
        `UPDATE messages m FORCE INDEX (PRIMARY) JOIN ${jsonRowsTable(tableColumns, 'v')} ON m.id = v.id
         SET ${sets.join(', ')}`,
        [jsonRows(tableColumns, values), state],
      );
    }
  }

  /**
   * The provider ids that changed rows learn from their reports (a status that came before our SENT
   * record, or settled an UNKNOWN row): written once; a row that has one keeps it.
   */
  private async nameRows(manager: SqlRunner, plans: readonly RowPlan[]): Promise<void> {
    const named = plans.flatMap((plan) =>
      plan.row.provider_message_id === null && plan.providerMessageId !== null
        ? [[plan.row.id, plan.providerMessageId]]
        : [],
    );
    if (named.length === 0) return;
    await writeRows(
      manager,
      `INSERT IGNORE INTO message_provider_ids (message_id, provider_message_id)
       VALUES ${named.map(() => '(?, ?)').join(', ')}`,
      named.flat(),
    );
  }
}

/** Absorbed reports by why (StatusApplication.absorbed). */
type Absorbed = Record<AbsorbedWhy, number>;

/**
 * What the reports do to the locked rows, in their order: each row's plan (its state moves forward
 * only, decideStatus), the changes to announce, the reports absorbed and those naming no message of
 * their credential.
 */
function planReports(
  rows: readonly MessageRow[],
  reports: readonly ReportedStatus[],
): { plans: Map<string, RowPlan>; applied: StatusChange[]; absorbed: Absorbed; unknown: number[] } {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const byProviderId = new Map<string, MessageRow>();
  for (const row of rows) {
    if (row.provider_message_id !== null)
      byProviderId.set(`${row.credential_id}\n${row.provider_message_id}`, row);
  }
  const plans = new Map<string, RowPlan>();
  const applied: StatusChange[] = [];
  const absorbed = absorbedNone();
  const unknown: number[] = [];
  for (const report of reports) {
    const row =
      report.messageId !== undefined
        ? byId.get(report.messageId)
        : byProviderId.get(`${report.credentialId}\n${report.providerMessageId}`);
    // Our id echoed by another credential's callback is not ours to change.
    if (row === undefined || row.credential_id !== report.credentialId) {
      unknown.push(report.index);
      continue;
    }
    const plan = plans.get(row.id) ?? newPlan(row);
    plans.set(row.id, plan);
    if (report.expected !== undefined && plan.to !== report.expected) {
      absorbed.moved += 1;
      continue;
    }
    const decision = decideStatus(plan.to, report.status);
    if (decision.apply) applied.push(advance(plan, report, decision.next));
    else absorbed[decision.why] += 1;
  }
  return { plans, applied, absorbed, unknown };
}

/** Moves a row's plan to `next` by a report; returns the change to announce. */
function advance(plan: RowPlan, report: ReportedStatus, next: MessageStatus): StatusChange {
  const previous = plan.to;
  plan.to = next;
  plan.providerMessageId ??= report.providerMessageId;
  const column = TIME_COLUMN[next];
  if (column !== undefined) plan.times[column] = sqlDateTime(report.occurredAt);
  const failed = next === MessageStatus.Failed;
  if (failed)
    plan.failure = { reason: report.reason, errorCode: report.errorCode, errorText: report.errorText };
  return {
    ...statusChangeOf(plan.row, previous, next),
    ...(plan.providerMessageId === null ? {} : { providerMessageId: plan.providerMessageId }),
    ...(failed ? { reason: report.reason, errorCode: report.errorCode, errorText: report.errorText } : {}),
    occurredAt: report.occurredAt,
  };
}

function compareIds(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return BigInt(a) < BigInt(b) ? -1 : 1;
}

function newPlan(row: MessageRow): RowPlan {
  const state = row.state as MessageStatus;
  return { row, from: state, to: state, providerMessageId: row.provider_message_id, times: {} };
}

function absorbedNone(): Absorbed {
  return { duplicate: 0, regression: 0, terminal: 0, 'not-reportable': 0, moved: 0 };
}
