/** What a ledger row records: a credit (TOP_UP, REFUND), a debit (RESERVE) or a correction (ADJUST). */
export type CreditLedgerKind = 'TOP_UP' | 'RESERVE' | 'REFUND' | 'ADJUST';

/** A tenant's credits on one channel. */
export interface CreditAccountView {
  readonly channel: string;
  /** Credits left. */
  readonly balance: number;
  /** Credits per message (per segment on SMS); null when the tenant is not metered on the channel. */
  readonly price: number | null;
  /** Whether sends on the channel spend credits (a price is set). */
  readonly metered: boolean;
}

/** A quota's current UTC period: its key, the messages counted in it and the limit (null: none). */
export interface CreditQuotaPeriodView {
  /** `2026-11-28` (a UTC day) or `2026-11` (a UTC month). */
  readonly period: string;
  readonly used: number;
  readonly limit: number | null;
}

/** A tenant's message caps across channels, and today's and this month's use of them. */
export interface CreditQuotasView {
  readonly dailyLimit: number | null;
  readonly monthlyLimit: number | null;
  readonly day: CreditQuotaPeriodView;
  readonly month: CreditQuotaPeriodView;
}

/** GET /v1/credits: the caller's tenant's balances and prices per channel, and its quotas. */
export interface CreditsView {
  readonly tenantId: string;
  /** One per channel, in a stable order; a channel never topped up nor priced reads balance 0, unmetered. */
  readonly accounts: CreditAccountView[];
  readonly quotas: CreditQuotasView;
}

/** One ledger row: a change of a balance, never updated or deleted. */
export interface CreditLedgerEntryView {
  /** Decimal string; newest entries have the highest ids. */
  readonly id: string;
  readonly channel: string;
  readonly kind: CreditLedgerKind;
  /** Credits added (positive) or taken (negative). */
  readonly amount: number;
  readonly balanceAfter: number;
  /** Messages the entry is for (reservations and refunds), 0 otherwise. */
  readonly messages: number;
  /** Units charged: messages, or SMS segments. */
  readonly units: number;
  readonly runId: string | null;
  /** A top-up's idempotency key, a reservation's claim. */
  readonly reference: string | null;
  /** Who made a top-up or adjustment (`operator`, `api-key:key_...`); null for the senders' entries. */
  readonly actor: string | null;
  readonly createdAt: string;
}

/** GET /v1/credits/ledger: newest first; `next` is the last id of a full page (pass it as `before`). */
export interface CreditLedgerPage {
  readonly items: CreditLedgerEntryView[];
  readonly next: string | null;
}

/** POST /v1/credits/top-ups: the top-up's ledger entry and the balance after it. */
export interface CreditTopUpView {
  readonly tenantId: string;
  readonly entry: CreditLedgerEntryView;
  /** The account's balance now (after later entries too, on a replay). */
  readonly balance: number;
  /** True when the reference had been topped up before: the first top-up's entry, nothing credited again. */
  readonly replayed: boolean;
  /** Runs paused for want of credits on the channel that were resumed. */
  readonly resumedRuns: number;
}

/** PUT /v1/credits/prices/{channel}: the account with its new price. */
export interface CreditPriceView extends CreditAccountView {
  readonly tenantId: string;
  /** Runs paused for want of credits on the channel that were resumed (the price now allows a send). */
  readonly resumedRuns: number;
}

/** PUT /v1/credits/quotas: the tenant's quotas as they now are. */
export interface CreditQuotasUpdateView extends CreditQuotasView {
  readonly tenantId: string;
}
