import { Channel } from '../enums/channel.enum';
import type {
  CreditAccountView,
  CreditLedgerEntryView,
  CreditLedgerKind,
  CreditLedgerPage,
  CreditPriceView,
  CreditQuotasUpdateView,
  CreditQuotasView,
  CreditsView,
  CreditTopUpView,
} from './credit.view';
import {
  arrayOf,
  BOOLEAN,
  DATE_TIME,
  DECIMAL_ID,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  unionValues,
  viewRef,
  viewSchema,
} from './view-schema';

const CHANNEL = oneOfValues(Object.values(Channel));
const KINDS: Readonly<Record<CreditLedgerKind, true>> = {
  TOP_UP: true,
  RESERVE: true,
  REFUND: true,
  ADJUST: true,
};

const ACCOUNT_PROPERTIES = {
  channel: CHANNEL,
  balance: described(INTEGER, 'Credits left.'),
  price: described(
    orNull(INTEGER),
    'Credits per message (per segment on SMS); null when the tenant is not metered on the channel.',
  ),
  metered: described(BOOLEAN, 'Whether sends on the channel spend credits (a price is set).'),
};

const ACCOUNT_EXAMPLE: CreditAccountView = { channel: 'sms', balance: 98_500, price: 5, metered: true };

export const CREDIT_ACCOUNT_VIEW = viewSchema<CreditAccountView>('CreditAccountView', {
  description: "A tenant's credits on one channel.",
  properties: ACCOUNT_PROPERTIES,
  example: ACCOUNT_EXAMPLE,
});

const PERIOD = {
  type: 'object',
  required: ['period', 'used', 'limit'],
  properties: {
    period: described(STRING, '`2026-11-28` (a UTC day) or `2026-11` (a UTC month).'),
    used: described(INTEGER, 'Messages counted in the period.'),
    limit: described(orNull(INTEGER), 'The cap; null when there is none.'),
  },
};

const QUOTA_PROPERTIES = {
  dailyLimit: described(orNull(INTEGER), 'Messages per UTC day across channels; null: no cap.'),
  monthlyLimit: described(orNull(INTEGER), 'Messages per UTC month across channels; null: no cap.'),
  day: PERIOD,
  month: PERIOD,
};

const QUOTAS_EXAMPLE: CreditQuotasView = {
  dailyLimit: 50_000,
  monthlyLimit: null,
  day: { period: '2026-11-28', used: 1_200, limit: 50_000 },
  month: { period: '2026-11', used: 30_400, limit: null },
};

export const CREDIT_QUOTAS_VIEW = viewSchema<CreditQuotasView>('CreditQuotasView', {
  description: "A tenant's message caps across channels, and today's and this month's use (UTC).",
  properties: QUOTA_PROPERTIES,
  example: QUOTAS_EXAMPLE,
});

export const CREDITS_VIEW = viewSchema<CreditsView>('CreditsView', {
  description: "The tenant's balance and price per channel, and its quotas with their current use.",
  properties: {
    tenantId: STRING,
    accounts: described(
      arrayOf(viewRef(CREDIT_ACCOUNT_VIEW)),
      'One per channel; a channel never topped up nor priced reads balance 0, unmetered.',
    ),
    quotas: viewRef(CREDIT_QUOTAS_VIEW),
  },
  example: {
    tenantId: 'acme',
    accounts: [
      { channel: 'whatsapp', balance: 0, price: null, metered: false },
      ACCOUNT_EXAMPLE,
      { channel: 'email', balance: 10_000, price: 1, metered: true },
    ],
    quotas: QUOTAS_EXAMPLE,
  },
  uses: [CREDIT_ACCOUNT_VIEW, CREDIT_QUOTAS_VIEW],
});

const ENTRY_EXAMPLE: CreditLedgerEntryView = {
  id: '5012',
  channel: 'sms',
  kind: 'TOP_UP',
  amount: 100_000,
  balanceAfter: 100_000,
  messages: 0,
  units: 0,
  runId: null,
  reference: 'invoice-2026-11-0042',
  actor: 'operator',
  createdAt: '2026-11-28T09:00:00.000Z',
};

export const CREDIT_LEDGER_ENTRY_VIEW = viewSchema<CreditLedgerEntryView>('CreditLedgerEntryView', {
  description: 'One change of a balance (the ledger is append-only: SUM(amount) is the balance).',
  properties: {
    id: DECIMAL_ID,
    channel: CHANNEL,
    kind: unionValues(KINDS),
    amount: described(INTEGER, 'Credits added (positive) or taken (negative).'),
    balanceAfter: INTEGER,
    messages: described(INTEGER, 'Messages the entry is for (reservations, refunds); 0 otherwise.'),
    units: described(INTEGER, 'Units charged: messages, or SMS segments.'),
    runId: orNull(DECIMAL_ID),
    reference: described(orNull(STRING), "A top-up's idempotency key, a reservation's claim."),
    actor: described(orNull(STRING), "Who made a top-up (`operator`); null for the senders' entries."),
    createdAt: DATE_TIME,
  },
  example: ENTRY_EXAMPLE,
});

export const CREDIT_LEDGER_PAGE = viewSchema<CreditLedgerPage>('CreditLedgerPage', {
  description: 'Ledger entries, newest first; `next` is the last id of a full page (pass it as `before`).',
  properties: { items: arrayOf(viewRef(CREDIT_LEDGER_ENTRY_VIEW)), next: orNull(DECIMAL_ID) },
  example: { items: [ENTRY_EXAMPLE], next: null },
  uses: [CREDIT_LEDGER_ENTRY_VIEW],
});

export const CREDIT_TOP_UP_VIEW = viewSchema<CreditTopUpView>('CreditTopUpView', {
  description:
    "A top-up's ledger entry and the balance; a reference topped up before answers the first entry " +
    '(`replayed`) and credits nothing again.',
  properties: {
    tenantId: STRING,
    entry: viewRef(CREDIT_LEDGER_ENTRY_VIEW),
    balance: described(INTEGER, "The account's balance now."),
    replayed: BOOLEAN,
    resumedRuns: described(INTEGER, 'Runs paused for want of credits on the channel that were resumed.'),
  },
  example: { tenantId: 'acme', entry: ENTRY_EXAMPLE, balance: 100_000, replayed: false, resumedRuns: 1 },
  uses: [CREDIT_LEDGER_ENTRY_VIEW],
});

export const CREDIT_PRICE_VIEW = viewSchema<CreditPriceView>('CreditPriceView', {
  description: "A tenant's account on a channel with its new price (the balance is unchanged).",
  properties: {
    tenantId: STRING,
    ...ACCOUNT_PROPERTIES,
    resumedRuns: described(
      INTEGER,
      'Runs paused for want of credits on the channel that were resumed (the price now allows a send).',
    ),
  },
  example: { tenantId: 'acme', ...ACCOUNT_EXAMPLE, resumedRuns: 0 },
});

export const CREDIT_QUOTAS_UPDATE_VIEW = viewSchema<CreditQuotasUpdateView>('CreditQuotasUpdateView', {
  description: "A tenant's quotas as they now are; runs paused for quota resume within a sweeper tick.",
  properties: { tenantId: STRING, ...QUOTA_PROPERTIES },
  example: { tenantId: 'acme', ...QUOTAS_EXAMPLE },
});
