import { Channel, RunPauseReason } from '@ums/contracts';
import { smsSegments, type TemplateContent } from '@ums/domain';

/** What a message costs in priced units, and what its row records (`messages.segments`, `encoding`). */
export interface MessageUnits {
  /** SMS parts; 1 for other channels. */
  readonly segments: number;
  /** 'gsm7' | 'ucs2' for SMS, '' for other channels. */
  readonly encoding: string;
  /** Priced units: segments for SMS, 1 message otherwise. */
  readonly units: number;
}

/** Segments and encoding of a rendered message: counted from the text for SMS, one unit otherwise. */
export function unitsOf(channel: Channel, content: TemplateContent): MessageUnits {
  if (channel !== Channel.Sms) return { segments: 1, encoding: '', units: 1 };
  const sms = smsSegments(content.text ?? '');
  return { segments: sms.segments, encoding: sms.encoding, units: sms.segments };
}

/** A claimable message on a priced account. */
export interface CreditCandidate {
  readonly id: string;
  readonly tenantId: string;
  readonly channel: string;
  readonly runId: string | null;
  readonly units: number;
  /** Credits the row still holds from an earlier attempt that was not refunded: it is not charged again. */
  readonly charge: number;
}

/** A tenant's locked account on one channel. */
export interface AccountState {
  readonly balance: number;
  /** Credits per unit; null: not metered on this channel. */
  readonly price: number | null;
}

/** Messages a tenant may still reserve today and this month (Infinity: no limit). */
export interface QuotaRoom {
  readonly day: number;
  readonly month: number;
}

/** One account's reservation: one balance UPDATE and one RESERVE ledger row. */
export interface AccountReservation {
  readonly tenantId: string;
  readonly channel: string;
  /** Credits debited (positive). */
  readonly amount: number;
  readonly balanceAfter: number;
  readonly messages: number;
  readonly units: number;
  /** The run when every charged message is of one run, else null. */
  readonly runId: string | null;
}

export interface ReservationPlan {
  /** The new charge of each message charged now. */
  readonly charges: Map<string, number>;
  /** Messages that could not be reserved, and why. */
  readonly held: Map<string, RunPauseReason>;
  readonly accounts: AccountReservation[];
  /** Messages reserved now per tenant (quota usage to add). */
  readonly quotaUsed: Map<string, number>;
  /** Credits newly held per run. */
  readonly chargedPerRun: Map<string, number>;
}

export const accountKey = (tenantId: string, channel: string): string => `${tenantId}\u0000${channel}`;

/**
 * Which candidates fit: per account, in id order, messages are taken while the balance covers
 * price * units and the tenant's day and month quotas have room (one message each); the first that
 * does not fit holds it and every later one of the account (a prefix is taken, so a run's messages
 * go in order). A message that still holds a charge goes again without a new charge or quota use.
 * Accounts without a price take everything uncharged. Pure: the caller locked the rows it read.
 */
export function planReservation(
  candidates: readonly CreditCandidate[],
  accounts: ReadonlyMap<string, AccountState>,
  quotas: ReadonlyMap<string, QuotaRoom>,
): ReservationPlan {
  const plan: ReservationPlan = {
    charges: new Map(),
    held: new Map(),
    accounts: [],
    quotaUsed: new Map(),
    chargedPerRun: new Map(),
  };
  const byAccount = new Map<string, CreditCandidate[]>();
  for (const c of candidates) {
    const key = accountKey(c.tenantId, c.channel);
    const list = byAccount.get(key);
    if (list === undefined) byAccount.set(key, [c]);
    else list.push(c);
  }
  for (const key of [...byAccount.keys()].sort()) {
    const account = accounts.get(key);
    if (account === undefined || account.price === null) continue;
    const rows = [...(byAccount.get(key) ?? [])].sort((a, b) => compareIds(a.id, b.id));
    reserveAccount(plan, rows, account, account.price, quotas);
  }
  return plan;
}

function reserveAccount(
  plan: ReservationPlan,
  rows: readonly CreditCandidate[],
  account: AccountState,
  price: number,
  quotas: ReadonlyMap<string, QuotaRoom>,
): void {
  let balance = account.balance;
  let messages = 0;
  let units = 0;
  const runs = new Set<string>();
  let stopped: RunPauseReason | undefined;
  for (const row of rows) {
    if (row.charge > 0) continue; // reserved by an earlier attempt, not refunded: goes as it is
    if (stopped === undefined) stopped = blockerOf(plan, row, balance, price, quotas);
    if (stopped !== undefined) {
      plan.held.set(row.id, stopped);
      continue;
    }
    const cost = price * row.units;
    balance -= cost;
    messages += 1;
    units += row.units;
    plan.charges.set(row.id, cost);
    plan.quotaUsed.set(row.tenantId, (plan.quotaUsed.get(row.tenantId) ?? 0) + 1);
    if (row.runId !== null) {
      runs.add(row.runId);
      plan.chargedPerRun.set(row.runId, (plan.chargedPerRun.get(row.runId) ?? 0) + cost);
    }
  }
  const first = rows[0];
  if (messages === 0 || first === undefined) return;
  plan.accounts.push({
    tenantId: first.tenantId,
    channel: first.channel,
    amount: account.balance - balance,
    balanceAfter: balance,
    messages,
    units,
    runId: runs.size === 1 ? ([...runs][0] ?? null) : null,
  });
}

/** Why this row cannot be reserved now, or undefined when it can. */
function blockerOf(
  plan: ReservationPlan,
  row: CreditCandidate,
  balance: number,
  price: number,
  quotas: ReadonlyMap<string, QuotaRoom>,
): RunPauseReason | undefined {
  const room = quotas.get(row.tenantId);
  const used = plan.quotaUsed.get(row.tenantId) ?? 0;
  if (room !== undefined && (used >= room.day || used >= room.month)) return RunPauseReason.QuotaExhausted;
  if (price * row.units > balance) return RunPauseReason.CreditsExhausted;
  return undefined;
}

/** BIGINT ids as decimal strings, in numeric order. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
