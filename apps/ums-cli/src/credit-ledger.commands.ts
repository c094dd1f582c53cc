import type {
  CreditLedgerEntryView,
  CreditQuotasView,
  CreditsView,
  JsonBodyOf,
  SchedulerOperations,
} from '@ums/client';
import { serviceChecked } from './api.client';
import { parseInteger } from './cli-args.parser';
import { UsageError } from './cli.errors';
import type { CommandContext, CommandSpec } from './command.types';
import { formatFields, formatTable, formatTime } from './output.formatter';

/** The service's bounds (apps/campaign-scheduler/src/credits-ledger/credits.dto.ts). */
const MAX_TOP_UP = 1_000_000_000_000;
const MAX_PRICE = 1_000_000;
const MAX_QUOTA = 1_000_000_000_000;

type Channel = JsonBodyOf<SchedulerOperations['Credits_topUp']>['channel'];

/** `N`, or `none` for null (no price, no cap); left out: undefined. */
function amountOrNone(
  context: CommandContext,
  name: 'price' | 'daily' | 'monthly',
  range: { min: number; max: number },
) {
  const text = context.input.string(name);
  if (text === undefined) return undefined;
  if (text.trim().toLowerCase() === 'none') return null;
  return parseInteger(text, `--${name}`, range, context.input.usage);
}

function quotaLine(q: CreditQuotasView['day']): string {
  return `${q.used} of ${q.limit ?? 'no cap'} (${q.period})`;
}

function formatCredits(view: CreditsView): string {
  const accounts = formatTable(
    ['CHANNEL', 'BALANCE', 'PRICE', 'METERED'],
    view.accounts.map((a) => [a.channel, a.balance, a.price ?? '-', a.metered ? 'yes' : 'no']),
  );
  const quotas = formatFields([
    ['tenant', view.tenantId],
    ['today', quotaLine(view.quotas.day)],
    ['this month', quotaLine(view.quotas.month)],
  ]);
  return `${accounts}\n${quotas}`;
}

function entryRow(e: CreditLedgerEntryView): (string | number | null)[] {
  return [
    e.id,
    formatTime(e.createdAt),
    e.channel,
    e.kind,
    e.amount,
    e.balanceAfter,
    e.units,
    e.runId,
    e.reference,
    e.actor,
  ];
}

const show: CommandSpec = {
  group: 'credits',
  name: 'show',
  args: [],
  options: [],
  summary: "the tenant's balance and price per channel, its quotas and today's and this month's use",
  async run(context) {
    context.input.noMoreArgs(0);
    const view = await context.api().credits.view();
    context.result(view, () => formatCredits(view));
  },
};

const ledger: CommandSpec = {
  group: 'credits',
  name: 'ledger',
  args: [],
  options: ['channel', 'kind', 'limit', 'before'],
  summary: "the tenant's credit ledger, newest first: top-ups, reservations, refunds",
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const page = await context.api().credits.ledger({
      channel: serviceChecked(input.string('channel')),
      kind: serviceChecked(input.string('kind')),
      limit: input.int('limit', { min: 1, max: 500 }),
      before: input.string('before'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'TIME', 'CHANNEL', 'KIND', 'AMOUNT', 'BALANCE', 'UNITS', 'RUN', 'REFERENCE', 'ACTOR'],
        page.items.map(entryRow),
      );
      return page.next === null ? table : `${table}more: --before ${page.next}\n`;
    });
  },
};

const topUp: CommandSpec = {
  group: 'credits',
  name: 'top-up',
  args: [],
  options: ['channel', 'amount', 'reference'],
  required: ['channel', 'amount', 'reference'],
  summary:
    'add credits to a tenant (operator key, --tenant): once per --reference, runs paused for credits go on',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const answer = await context.api().credits.topUp({
      channel: serviceChecked<Channel>(input.required('channel')),
      amount: input.int('amount', { min: 1, max: MAX_TOP_UP }) as number,
      reference: input.required('reference'),
    });
    context.result(answer, () =>
      formatFields([
        ['tenant', answer.tenantId],
        ['channel', answer.entry.channel],
        [
          'credited',
          answer.replayed
            ? `nothing: ${answer.entry.reference ?? ''} was topped up before`
            : answer.entry.amount,
        ],
        [
          'entry',
          `${answer.entry.id} at ${formatTime(answer.entry.createdAt)} by ${answer.entry.actor ?? '-'}`,
        ],
        ['balance', answer.balance],
        ['runs resumed', answer.resumedRuns],
      ]),
    );
  },
};

const price: CommandSpec = {
  group: 'credits',
  name: 'price',
  args: [],
  options: ['channel', 'price'],
  required: ['channel', 'price'],
  summary: "set a tenant's credits per message on a channel, per segment on SMS (operator key, --tenant)",
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const value = amountOrNone(context, 'price', { min: 0, max: MAX_PRICE }) ?? null;
    const answer = await context
      .api()
      .credits.setPrice(serviceChecked<Channel>(input.required('channel')), { price: value });
    context.result(answer, () =>
      formatFields([
        ['tenant', answer.tenantId],
        ['channel', answer.channel],
        ['price', answer.price ?? 'none (not metered)'],
        ['balance', answer.balance],
        ['runs resumed', answer.resumedRuns],
      ]),
    );
  },
};

const quota: CommandSpec = {
  group: 'credits',
  name: 'quota',
  args: [],
  options: ['daily', 'monthly'],
  summary:
    "set a tenant's messages per UTC day and month across channels; none lifts a cap (operator key, --tenant)",
  async run(context) {
    context.input.noMoreArgs(0);
    const dailyLimit = amountOrNone(context, 'daily', { min: 1, max: MAX_QUOTA });
    const monthlyLimit = amountOrNone(context, 'monthly', { min: 1, max: MAX_QUOTA });
    if (dailyLimit === undefined && monthlyLimit === undefined) {
      throw new UsageError('give --daily, --monthly or both', context.input.usage);
    }
    const answer = await context.api().credits.setQuotas({
      ...(dailyLimit === undefined ? {} : { dailyLimit }),
      ...(monthlyLimit === undefined ? {} : { monthlyLimit }),
    });
    context.result(answer, () =>
      formatFields([
        ['tenant', answer.tenantId],
        ['today', quotaLine(answer.day)],
        ['this month', quotaLine(answer.month)],
      ]),
    );
  },
};

export const CREDIT_COMMANDS: readonly CommandSpec[] = [show, ledger, topUp, price, quota];
