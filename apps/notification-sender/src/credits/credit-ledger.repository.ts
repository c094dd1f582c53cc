import { Injectable } from '@nestjs/common';
import { quotaPeriodsAt } from '@ums/domain';
import { selectRows, type SqlRunner, writeRows } from '@ums/platform';
import { moveCounters, type RunTotals } from '../sending/run-counters';
import {
  type AccountState,
  accountKey,
  type CreditCandidate,
  type QuotaRoom,
  planReservation,
  type ReservationPlan,
} from './credit-plan';
import { CreditsMetrics } from './credits.metrics';

/** A claimed message whose charge goes back to its tenant (it was not sent). */
export interface RefundRow {
  readonly id: string;
  readonly tenantId: string;
  readonly channel: string;
  readonly runId: string | null;
  /** Credits the row holds (`messages.charge`); rows with 0 are left alone. */
  readonly charge: number;
  /** Priced units of the message (SMS segments, else 1), for the ledger row; 0 when unknown. */
  readonly units?: number;
}

/** A `credit_accounts` row as locked: BIGINT columns are strings. */
interface AccountRow {
  readonly tenant_id: string;
  readonly channel: string;
  readonly balance: string;
  readonly price: string | null;
}

interface QuotaRow {
  readonly tenant_id: string;
  readonly daily_limit: string | null;
  readonly monthly_limit: string | null;
}

interface UsageRow {
  readonly tenant_id: string;
  readonly period: string;
  readonly used: string;
}

/** One ledger row to append. */
interface LedgerEntry {
  readonly tenantId: string;
  readonly channel: string;
  readonly kind: 'RESERVE' | 'REFUND';
  readonly amount: number;
  readonly balanceAfter: number;
  readonly messages: number;
  readonly units: number;
  readonly runId: string | null;
  readonly reference: string | null;
}

const NO_RESERVATION: ReservationPlan = {
  charges: new Map(),
  held: new Map(),
  accounts: [],
  quotaUsed: new Map(),
  chargedPerRun: new Map(),
};

/**
 * Tenant credits on the sending side, always in the caller's transaction (a claim's or a record's):
 * reservations debit the balance of each priced (tenant, channel) account for the messages claimed,
 * refunds credit it back for messages that were not sent. Every change of a balance appends one
 * `credit_ledger` row per account in the same transaction, so the balance always equals the sum of
 * the account's ledger amounts. Locks: message rows (the caller's), then accounts in key order, then
 * quotas and their usage.
 */
@Injectable()
export class CreditLedgerRepository {
  constructor(private readonly metrics: CreditsMetrics) {}

  /**
   * Reserves credits for the candidates (rows of priced accounts that will be sent): locks their
   * accounts and quotas, plans which fit (planReservation), debits each account with one UPDATE,
   * appends one RESERVE row per account (reference: the claim token) and counts quota usage. The
   * caller writes `messages.charge` with its claim and leaves the held rows unclaimed.
   */
  async reserve(
    manager: SqlRunner,
    token: string,
    candidates: readonly CreditCandidate[],
    now: Date = new Date(),
  ): Promise<ReservationPlan> {
    const fresh = candidates.filter((c) => c.charge === 0);
    if (fresh.length === 0) return NO_RESERVATION;
    const accounts = await lockAccounts(manager, fresh);
    const metered = [...new Set(fresh.map((c) => c.tenantId))].filter((tenantId) =>
      fresh.some(
        (c) => c.tenantId === tenantId && accounts.get(accountKey(tenantId, c.channel))?.price != null,
      ),
    );
    const periods = quotaPeriodsAt(now);
    const quotas = await lockQuotas(manager, metered, periods);
    const plan = planReservation(candidates, accounts, quotas);
    for (const account of plan.accounts) {
      await writeRows(
        manager,
        `UPDATE credit_accounts SET balance = balance - ?, updated_at = UTC_TIMESTAMP(3)
          WHERE tenant_id = ? AND channel = ?`,
        [account.amount, account.tenantId, account.channel],
      );
    }
    await appendLedger(
      manager,
      plan.accounts.map((a) => ({ ...a, kind: 'RESERVE', amount: -a.amount, reference: token })),
    );
    await addQuotaUsage(manager, plan.quotaUsed, periods);
    for (const account of plan.accounts)
      this.metrics.reserved.inc({ channel: account.channel }, account.amount);
    for (const reason of plan.held.values()) this.metrics.holds.inc({ reason });
    return plan;
  }

  /**
   * Gives back the charge of messages that were not sent, in the caller's transaction, which must
   * hold the message rows locked (the record or release that settles them, or a status refresh that
   * found the provider never had them): balance += charge and `messages.charge` = 0, one REFUND
   * ledger row per (tenant, channel), the runs' `charged` totals and the quota usage of the current
   * day and month reduced. Rows without a charge, or whose account is gone, are left as they are.
   * Returns the credits refunded.
   */
  async refundUnsent(
    manager: SqlRunner,
    rows: readonly RefundRow[],
    now: Date = new Date(),
  ): Promise<number> {
    const charged = rows.filter((row) => row.charge > 0);
    if (charged.length === 0) return 0;
    const balances = await lockAccounts(manager, charged);
    const refunded = charged.filter((row) => balances.has(accountKey(row.tenantId, row.channel)));
    if (refunded.length === 0) return 0;
    await writeRows(manager, 'UPDATE messages FORCE INDEX (PRIMARY) SET charge = 0 WHERE id IN (?)', [
      refunded.map((row) => row.id),
    ]);
    const entries = refundEntries(refunded, balances);
    for (const entry of entries) {
      await writeRows(
        manager,
        `UPDATE credit_accounts SET balance = balance + ?, updated_at = UTC_TIMESTAMP(3)
          WHERE tenant_id = ? AND channel = ?`,
        [entry.amount, entry.tenantId, entry.channel],
      );
    }
    await appendLedger(manager, entries);
    await removeQuotaUsage(manager, refunded, quotaPeriodsAt(now));
    const perRun = new Map<string, RunTotals>();
    for (const row of refunded) {
      if (row.runId !== null)
        perRun.set(row.runId, { charged: (perRun.get(row.runId)?.charged ?? 0) - row.charge });
    }
    await moveCounters(manager, [], perRun);
    for (const entry of entries) this.metrics.refunded.inc({ channel: entry.channel }, entry.amount);
    return entries.reduce((sum, entry) => sum + entry.amount, 0);
  }
}

/** The accounts of these rows' (tenant, channel) pairs, locked in key order. */
async function lockAccounts(
  manager: SqlRunner,
  rows: readonly { readonly tenantId: string; readonly channel: string }[],
): Promise<Map<string, AccountState>> {
  const keys = new Map(rows.map((r) => [accountKey(r.tenantId, r.channel), [r.tenantId, r.channel]]));
  const pairs = [...keys.values()];
  const found = await selectRows<AccountRow>(
    manager,
    `SELECT tenant_id, channel, balance, price FROM credit_accounts
      WHERE ${pairs.map(() => '(tenant_id = ? AND channel = ?)').join(' OR ')}
      ORDER BY tenant_id, channel FOR UPDATE`,
    pairs.flat(),
  );
  return new Map(
    found.map((row) => [
      accountKey(row.tenant_id, row.channel),
      { balance: Number(row.balance), price: row.price === null ? null : Number(row.price) },
    ]),
  );
}

/** The room each metered tenant's quotas leave today and this month, their rows locked. */
async function lockQuotas(
  manager: SqlRunner,
  tenants: readonly string[],
  periods: { readonly day: string; readonly month: string },
): Promise<Map<string, QuotaRoom>> {
  if (tenants.length === 0) return new Map();
  const quotas = await selectRows<QuotaRow>(
    manager,
    `SELECT tenant_id, daily_limit, monthly_limit FROM credit_quotas
      WHERE tenant_id IN (?) AND (daily_limit IS NOT NULL OR monthly_limit IS NOT NULL)
      ORDER BY tenant_id FOR UPDATE`,
    [tenants],
  );
  if (quotas.length === 0) return new Map();
  const usage = await selectRows<UsageRow>(
    manager,
    `SELECT tenant_id, period, used FROM credit_quota_usage
      WHERE tenant_id IN (?) AND period IN (?, ?) ORDER BY tenant_id, period FOR UPDATE`,
    [quotas.map((q) => q.tenant_id), periods.day, periods.month],
  );
  const used = (tenantId: string, period: string): number =>
    Number(usage.find((u) => u.tenant_id === tenantId && u.period === period)?.used ?? 0);
  const room = (limit: string | null, taken: number): number =>
    limit === null ? Number.POSITIVE_INFINITY : Math.max(Number(limit) - taken, 0);
  return new Map(
    quotas.map((q) => [
      q.tenant_id,
      {
        day: room(q.daily_limit, used(q.tenant_id, periods.day)),
        month: room(q.monthly_limit, used(q.tenant_id, periods.month)),
      },
    ]),
  );
}

/** Counts reserved messages in the tenants' day and month periods (one upsert). */
async function addQuotaUsage(
  manager: SqlRunner,
  perTenant: ReadonlyMap<string, number>,
  periods: { readonly day: string; readonly month: string },
): Promise<void> {
  const rows = [...perTenant].flatMap(([tenantId, n]) => [
    [tenantId, periods.day, n],
    [tenantId, periods.month, n],
  ]);
  if (rows.length === 0) return;
  await writeRows(
    manager,
    `INSERT INTO credit_quota_usage (tenant_id, period, used) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}
     ON DUPLICATE KEY UPDATE used = used + VALUES(used)`,
    rows.flat(),
  );
}

/** Gives refunded messages back to their tenants' current day and month usage (never below 0). */
async function removeQuotaUsage(
  manager: SqlRunner,
  rows: readonly RefundRow[],
  periods: { readonly day: string; readonly month: string },
): Promise<void> {
  const perTenant = new Map<string, number>();
  for (const row of rows) perTenant.set(row.tenantId, (perTenant.get(row.tenantId) ?? 0) + 1);
  for (const [tenantId, n] of [...perTenant].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await writeRows(
      manager,
      `UPDATE credit_quota_usage SET used = GREATEST(CAST(used AS SIGNED) - ?, 0)
        WHERE tenant_id = ? AND period IN (?, ?)`,
      [n, tenantId, periods.day, periods.month],
    );
  }
}

/** One REFUND entry per account, its balance after the refund. */
function refundEntries(
  rows: readonly RefundRow[],
  balances: ReadonlyMap<string, AccountState>,
): LedgerEntry[] {
  const perAccount = new Map<string, RefundRow[]>();
  for (const row of rows) {
    const key = accountKey(row.tenantId, row.channel);
    const list = perAccount.get(key);
    if (list === undefined) perAccount.set(key, [row]);
    else list.push(row);
  }
  return [...perAccount.keys()].sort().map((key) => {
    const list = perAccount.get(key) ?? [];
    const first = list[0] as RefundRow;
    const amount = list.reduce((sum, row) => sum + row.charge, 0);
    const runs = new Set(list.map((row) => row.runId));
    return {
      tenantId: first.tenantId,
      channel: first.channel,
      kind: 'REFUND',
      amount,
      balanceAfter: (balances.get(key)?.balance ?? 0) + amount,
      messages: list.length,
      units: list.reduce((sum, row) => sum + (row.units ?? 0), 0),
      runId: runs.size === 1 ? ([...runs][0] ?? null) : null,
      reference: null,
    };
  });
}

async function appendLedger(manager: SqlRunner, entries: readonly LedgerEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await writeRows(
    manager,
    `INSERT INTO credit_ledger (tenant_id, channel, kind, amount, balance_after, messages, units, run_id, reference,
                                created_at)
     VALUES ${entries.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))').join(', ')}`,
    entries.flatMap((e) => [
      e.tenantId,
      e.channel,
      e.kind,
      e.amount,
      e.balanceAfter,
      e.messages,
      e.units,
      e.runId,
      e.reference,
    ]),
  );
}
