import { Injectable } from '@nestjs/common';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';

/** A tenant's credits on one channel (credit_accounts). */
export interface CreditAccountRecord {
  readonly tenantId: string;
  readonly channel: string;
  readonly balance: number;
  /** Credits per message (per segment on SMS); null: not metered. */
  readonly price: number | null;
}

/** A tenant's caps (credit_quotas); null: none. */
export interface CreditQuotaRecord {
  readonly dailyLimit: number | null;
  readonly monthlyLimit: number | null;
}

/** BIGINT columns arrive as decimal strings (bigNumberStrings). */
interface AccountRow {
  readonly tenant_id: string;
  readonly channel: string;
  readonly balance: string;
  readonly price: string | null;
}

interface QuotaRow {
  readonly daily_limit: string | null;
  readonly monthly_limit: string | null;
}

interface UsageRow {
  readonly period: string;
  readonly used: string;
}

const ACCOUNT_COLUMNS = 'tenant_id, channel, balance, price';

/**
 * credit_accounts, credit_quotas and credit_quota_usage as the credits API reads and sets them. A balance
 * is only ever changed together with a ledger row (CreditLedgerRepository), in one transaction: here the
 * account is created at balance 0 (no row needed: the ledger sums to 0) or locked, and its price set.
 */
@Injectable()
export class CreditAccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The tenant's accounts (one per channel it was topped up or priced on). */
  async accountsOf(tenantId: string): Promise<CreditAccountRecord[]> {
    const rows = await selectRows<AccountRow>(
      this.dataSource,
      `SELECT ${ACCOUNT_COLUMNS} FROM credit_accounts WHERE tenant_id = ? ORDER BY channel`,
      [tenantId],
    );
    return rows.map(toAccount);
  }

  /** The metered accounts (a price set) with the lowest balances, lowest first. */
  async lowestMetered(limit: number): Promise<CreditAccountRecord[]> {
    const rows = await selectRows<AccountRow>(
      this.dataSource,
      `SELECT ${ACCOUNT_COLUMNS} FROM credit_accounts WHERE price IS NOT NULL ORDER BY balance LIMIT ?`,
      [limit],
    );
    return rows.map(toAccount);
  }

  /** The account, created at balance 0 and unmetered when missing, locked for the transaction. */
  async lockOrCreate(
    manager: EntityManager,
    tenantId: string,
    channel: string,
  ): Promise<CreditAccountRecord> {
    await writeRows(
      manager,
      `INSERT INTO credit_accounts (tenant_id, channel, balance, price) VALUES (?, ?, 0, NULL)
       ON DUPLICATE KEY UPDATE balance = balance`,
      [tenantId, channel],
    );
    const rows = await selectRows<AccountRow>(
      manager,
      `SELECT ${ACCOUNT_COLUMNS} FROM credit_accounts WHERE tenant_id = ? AND channel = ? FOR UPDATE`,
      [tenantId, channel],
    );
    return toAccount(rows[0] as AccountRow);
  }

  /** Adds `amount` to a locked account's balance (its ledger row goes in the same transaction). */
  async addToBalance(
    manager: EntityManager,
    tenantId: string,
    channel: string,
    amount: number,
  ): Promise<void> {
    await writeRows(
      manager,
      `UPDATE credit_accounts SET balance = balance + ?, updated_at = UTC_TIMESTAMP(3)
        WHERE tenant_id = ? AND channel = ?`,
      [amount, tenantId, channel],
    );
  }

  /** Sets the price of a locked account (no ledger row: the balance does not change). */
  async setPrice(
    manager: EntityManager,
    tenantId: string,
    channel: string,
    price: number | null,
  ): Promise<void> {
    await writeRows(
      manager,
      `UPDATE credit_accounts SET price = ?, updated_at = UTC_TIMESTAMP(3) WHERE tenant_id = ? AND channel = ?`,
      [price, tenantId, channel],
    );
  }

  async quotaOf(tenantId: string): Promise<CreditQuotaRecord> {
    const rows = await selectRows<QuotaRow>(
      this.dataSource,
      'SELECT daily_limit, monthly_limit FROM credit_quotas WHERE tenant_id = ?',
      [tenantId],
    );
    const row = rows[0];
    return {
      dailyLimit: row === undefined ? null : numberOrNull(row.daily_limit),
      monthlyLimit: row === undefined ? null : numberOrNull(row.monthly_limit),
    };
  }

  /** Sets the caps given (undefined: unchanged, null: none), creating the tenant's row when missing. */
  async setQuota(
    tenantId: string,
    change: { readonly dailyLimit?: number | null; readonly monthlyLimit?: number | null },
  ): Promise<void> {
    const daily = change.dailyLimit !== undefined;
    const monthly = change.monthlyLimit !== undefined;
    await writeRows(
      this.dataSource,
      `INSERT INTO credit_quotas (tenant_id, daily_limit, monthly_limit) VALUES (?, ?, ?)
       ON DUPLICATE KEY UPDATE
         daily_limit = ${daily ? 'VALUES(daily_limit)' : 'daily_limit'},
         monthly_limit = ${monthly ? 'VALUES(monthly_limit)' : 'monthly_limit'},
         updated_at = UTC_TIMESTAMP(3)`,
      [tenantId, change.dailyLimit ?? null, change.monthlyLimit ?? null],
    );
  }

  /** The database's clock (UTC): quota periods follow it, as the senders' counts do. */
  async dbNow(): Promise<Date> {
    const rows = await selectRows<{ now: Date }>(this.dataSource, 'SELECT UTC_TIMESTAMP(3) AS now');
    return (rows[0] as { now: Date }).now;
  }

  /** Messages counted in each of the periods (0 for a period without a row). */
  async usage(tenantId: string, periods: readonly string[]): Promise<Map<string, number>> {
    const rows = await selectRows<UsageRow>(
      this.dataSource,
      'SELECT period, used FROM credit_quota_usage WHERE tenant_id = ? AND period IN (?)',
      [tenantId, periods],
    );
    const used = new Map(periods.map((period) => [period, 0]));
    for (const row of rows) used.set(row.period, Number(row.used));
    return used;
  }
}

function toAccount(row: AccountRow): CreditAccountRecord {
  return {
    tenantId: row.tenant_id,
    channel: row.channel,
    balance: Number(row.balance),
    price: numberOrNull(row.price),
  };
}

function numberOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}
