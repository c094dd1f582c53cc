import {
  Channel,
  type CreditAccountView,
  type CreditLedgerEntryView,
  type CreditQuotasView,
} from '@ums/contracts';
import { periodLabel, type QuotaPeriods } from '@ums/domain';
import type { CreditAccountRecord, CreditQuotaRecord } from './credit-accounts.repository';
import type { CreditLedgerRecord } from './credit-ledger.repository';

/** One account per channel in Channel's order; a channel without a row: balance 0, not metered. */
export function toAccountViews(records: readonly CreditAccountRecord[]): CreditAccountView[] {
  return Object.values(Channel).map((channel) => {
    const record = records.find((r) => r.channel === channel);
    return toAccountView(record ?? { tenantId: '', channel, balance: 0, price: null });
  });
}

export function toAccountView(record: CreditAccountRecord): CreditAccountView {
  return {
    channel: record.channel,
    balance: record.balance,
    price: record.price,
    metered: record.price !== null,
  };
}

export function toQuotasView(
  quota: CreditQuotaRecord,
  periods: QuotaPeriods,
  used: ReadonlyMap<string, number>,
): CreditQuotasView {
  return {
    dailyLimit: quota.dailyLimit,
    monthlyLimit: quota.monthlyLimit,
    day: { period: periodLabel(periods.day), used: used.get(periods.day) ?? 0, limit: quota.dailyLimit },
    month: {
      period: periodLabel(periods.month),
      used: used.get(periods.month) ?? 0,
      limit: quota.monthlyLimit,
    },
  };
}

export function toLedgerEntryView(record: CreditLedgerRecord): CreditLedgerEntryView {
  return {
    id: record.id,
    channel: record.channel,
    kind: record.kind,
    amount: record.amount,
    balanceAfter: record.balanceAfter,
    messages: record.messages,
    units: record.units,
    runId: record.runId,
    reference: record.reference,
    actor: record.actor,
    createdAt: record.createdAt.toISOString(),
  };
}
