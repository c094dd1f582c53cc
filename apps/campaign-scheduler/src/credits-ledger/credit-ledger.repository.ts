import { Injectable } from '@nestjs/common';
import { Channel, type CreditLedgerKind } from '@ums/contracts';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';

/** One credit_ledger row. */
export interface CreditLedgerRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly channel: string;
  readonly kind: CreditLedgerKind;
  readonly amount: number;
  readonly balanceAfter: number;
  readonly messages: number;
  readonly units: number;
  readonly runId: string | null;
  readonly reference: string | null;
  readonly actor: string | null;
  readonly createdAt: Date;
}

/** A new row: a top-up or an adjustment made through the API. */
export interface NewLedgerEntry {
  readonly tenantId: string;
  readonly channel: string;
  readonly kind: CreditLedgerKind;
  readonly amount: number;
  readonly balanceAfter: number;
  readonly reference: string | null;
  readonly actor: string | null;
}

/** BIGINT columns as decimal strings (bigNumberStrings); INT UNSIGNED as numbers. */
interface LedgerRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly channel: string;
  readonly kind: CreditLedgerKind;
  readonly amount: string;
  readonly balance_after: string;
  readonly messages: number;
  readonly units: number;
  readonly run_id: string | null;
  readonly reference: string | null;
  readonly actor: string | null;
  readonly created_at: Date;
}

const COLUMNS =
  'id, tenant_id, channel, kind, amount, balance_after, messages, units, run_id, reference, actor, created_at';

/** What a page of the ledger is filtered by. */
export interface LedgerFilter {
  readonly channel?: string;
  readonly kind?: CreditLedgerKind;
  /** Entries older than this id. */
  readonly before?: string;
  readonly limit: number;
}

/**
 * credit_ledger: append-only, every change of a balance. Pages are read newest first through
 * idx_credit_ledger_account (tenant_id, channel, id): one range per channel, merged, so a tenant's page
 * never sorts its whole ledger.
 */
@Injectable()
export class CreditLedgerRepository {
  constructor(private readonly dataSource: DataSource) {}

  async page(tenantId: string, filter: LedgerFilter): Promise<CreditLedgerRecord[]> {
    const channels = filter.channel === undefined ? Object.values(Channel) : [filter.channel];
    const parts: string[] = [];
    const params: unknown[] = [];
    for (const channel of channels) {
      parts.push(
        `(SELECT ${COLUMNS} FROM credit_ledger
           WHERE tenant_id = ? AND channel = ?${filter.kind === undefined ? '' : ' AND kind = ?'}
             ${filter.before === undefined ? '' : 'AND id < ?'}
           ORDER BY id DESC LIMIT ?)`,
      );
      params.push(tenantId, channel);
      if (filter.kind !== undefined) params.push(filter.kind);
      if (filter.before !== undefined) params.push(filter.before);
      params.push(filter.limit);
    }
    const rows = await selectRows<LedgerRow>(
      this.dataSource,
      `${parts.join(' UNION ALL ')} ORDER BY id DESC LIMIT ?`,
      [...params, filter.limit],
    );
    return rows.map(toRecord);
  }

  /** The row of a reference, locked (a top-up's idempotency key), if it was written. */
  async findByReference(
    manager: EntityManager,
    key: { tenantId: string; channel: string; kind: CreditLedgerKind; reference: string },
  ): Promise<CreditLedgerRecord | undefined> {
    const rows = await selectRows<LedgerRow>(
      manager,
      `SELECT ${COLUMNS} FROM credit_ledger
        WHERE tenant_id = ? AND channel = ? AND kind = ? AND reference = ? FOR UPDATE`,
      [key.tenantId, key.channel, key.kind, key.reference],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /** Appends a row in the caller's transaction (the one changing the balance); returns it. */
  async append(manager: EntityManager, entry: NewLedgerEntry): Promise<CreditLedgerRecord> {
    const result = await writeRows(
      manager,
      `INSERT INTO credit_ledger (tenant_id, channel, kind, amount, balance_after, reference, actor)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [
        entry.tenantId,
        entry.channel,
        entry.kind,
        entry.amount,
        entry.balanceAfter,
        entry.reference,
        entry.actor,
      ],
    );
    const rows = await selectRows<LedgerRow>(manager, `SELECT ${COLUMNS} FROM credit_ledger WHERE id = ?`, [
      String(result.insertId),
    ]);
    return toRecord(rows[0] as LedgerRow);
  }
}

function toRecord(row: LedgerRow): CreditLedgerRecord {
  return {
    id: String(row.id),
    tenantId: row.tenant_id,
    channel: row.channel,
    kind: row.kind,
    amount: Number(row.amount),
    balanceAfter: Number(row.balance_after),
    messages: Number(row.messages),
    units: Number(row.units),
    runId: row.run_id === null ? null : String(row.run_id),
    reference: row.reference,
    actor: row.actor,
    createdAt: row.created_at,
  };
}
