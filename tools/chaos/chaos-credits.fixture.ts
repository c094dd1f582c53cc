import type { StatusRefreshView } from '@ums/contracts';
import { jsonCall, waitUntil } from '@ums/testing';
import type { ChaosStack } from './chaos-stack.fixture';

/** Credits per message the chaos tenant pays on the campaign's channel. */
export const CHAOS_PRICE = 3;

/** What the operator tops up: twice what the whole audience could cost, so the run never pauses. */
export const chaosTopUp = (recipients: number): number => recipients * CHAOS_PRICE * 2;

/** The tenant's credits on the channel: balance, ledger sums by kind, and the run's messages' charges. */
export interface CreditFigures {
  readonly balance: number;
  /** SUM(amount) by ledger kind (TOP_UP, RESERVE, REFUND, ADJUST). */
  readonly ledger: Record<string, number>;
  /** SUM(amount) of every ledger row: what the balance must equal. */
  readonly ledgerSum: number;
  /** SUM(messages.charge) of the run's rows. */
  readonly charged: number;
  /** Rows holding a charge. */
  readonly chargedRows: number;
  /** Rows holding more than one price: a double debit. */
  readonly overcharged: number;
}

/** Prices the tenant's channel and tops it up, as an operator does, before the campaign starts. */
export async function setUpCredits(
  stack: ChaosStack,
  account: { readonly tenantId: string; readonly channel: string; readonly recipients: number },
): Promise<void> {
  const scheduler = stack.url('scheduler');
  const headers = { 'x-ums-tenant': account.tenantId };
  const price = await jsonCall(
    scheduler,
    'PUT',
    `/v1/credits/prices/${account.channel}`,
    { price: CHAOS_PRICE },
    stack.operatorKey,
    headers,
  );
  const topUp = await jsonCall(
    scheduler,
    'POST',
    '/v1/credits/top-ups',
    { channel: account.channel, amount: chaosTopUp(account.recipients), reference: 'chaos-top-up' },
    stack.operatorKey,
    headers,
  );
  if (price.status !== 200 || topUp.status !== 200)
    throw new Error(`Pricing answered ${price.status} ${price.text}; top-up ${topUp.status} ${topUp.text}`);
}

/**
 * Asks for a status refresh of the run, as an operator does after it completed, and waits until no
 * row is UNKNOWN and the request is finished. Returns the run's UNKNOWN rows before the request.
 */
export async function refreshRunStatuses(
  stack: ChaosStack,
  run: { readonly apiKey: string; readonly campaignId: string; readonly runId: string },
): Promise<{ readonly unknownBefore: number; readonly view: StatusRefreshView }> {
  const path = `/v1/campaigns/${run.campaignId}/runs/${run.runId}/status-refresh`;
  const scheduler = stack.url('scheduler');
  const requested = await jsonCall(scheduler, 'POST', path, undefined, run.apiKey);
  if (requested.status !== 202)
    throw new Error(`Status refresh answered ${requested.status}: ${requested.text}`);
  const before = requested.body as unknown as StatusRefreshView;
  const view = await waitUntil(
    'the status refresh settled every UNKNOWN row',
    async () => {
      const answer = await jsonCall(scheduler, 'GET', path, undefined, run.apiKey);
      const current = answer.body as unknown as StatusRefreshView;
      const done = current.unsettled.unknown === 0 && (current.lastRefresh?.finishedAt ?? null) !== null;
      return done ? current : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 1_000 },
  );
  return { unknownBefore: before.unsettled.unknown, view };
}

/** The credit figures of the tenant's channel and of the run's rows, read from the stack's database. */
export async function creditFiguresOf(
  stack: ChaosStack,
  account: { readonly tenantId: string; readonly channel: string; readonly runId: string },
): Promise<CreditFigures> {
  const [accountRow] = (await stack.ds.query(
    'SELECT balance FROM credit_accounts WHERE tenant_id = ? AND channel = ?',
    [account.tenantId, account.channel],
  )) as { balance: string | number }[];
  const kinds = (await stack.ds.query(
    'SELECT kind, SUM(amount) AS total FROM credit_ledger WHERE tenant_id = ? AND channel = ? GROUP BY kind',
    [account.tenantId, account.channel],
  )) as { kind: string; total: string | number }[];
  const [charges] = (await stack.ds.query(
    `SELECT COALESCE(SUM(charge), 0) AS charged, COALESCE(SUM(charge > 0), 0) AS charged_rows,
            COALESCE(SUM(charge > ?), 0) AS overcharged
       FROM messages WHERE run_id = ?`,
    [CHAOS_PRICE, account.runId],
  )) as { charged: string | number; charged_rows: string | number; overcharged: string | number }[];
  const ledger = Object.fromEntries(kinds.map((k) => [k.kind, Number(k.total)]));
  return {
    balance: Number(accountRow?.balance ?? Number.NaN),
    ledger,
    ledgerSum: Object.values(ledger).reduce((sum, v) => sum + v, 0),
    charged: Number(charges?.charged ?? 0),
    chargedRows: Number(charges?.charged_rows ?? 0),
    overcharged: Number(charges?.overcharged ?? 0),
  };
}
