import type { TestSendView } from '@ums/client';
import { watchInterval } from './campaign.commands';
import { UsageError } from './cli.errors';
import type { CommandContext, CommandSpec } from './command.types';
import { formatFields, formatTable, formatTime } from './output.formatter';

/** States a message may still leave by sending: --wait polls while any recipient is in one. */
const UNSETTLED = new Set(['PENDING', 'SENDING']);
/** How long --wait polls at most before it prints what it has. */
const WAIT_LIMIT_MS = 120_000;

/** `--var name=value` pairs as the request's variables (a value may hold `=`). */
export function parseVariables(pairs: readonly string[], usage: string): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const variables: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--var must be NAME=VALUE, got ${JSON.stringify(pair)}`, usage);
    variables[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return { ...variables };
}

/** Every recipient's result, one line each. */
export function formatTestSend(view: TestSendView): string {
  const head = formatFields([
    ['test send', view.id],
    ['campaign', view.campaignId],
    ['by', view.actor],
    ['created', formatTime(view.createdAt)],
  ]);
  const rows = view.recipients.map((r) => [
    r.position,
    r.recipient,
    r.messageId,
    r.state,
    r.errorCode === null ? null : `${r.errorCode}${r.errorText === null ? '' : `: ${r.errorText}`}`,
    formatTime(r.sentAt),
    formatTime(r.deliveredAt),
  ]);
  return `${head}${formatTable(['#', 'RECIPIENT', 'MESSAGE', 'STATE', 'ERROR', 'SENT', 'DELIVERED'], rows)}`;
}

/** Polls the test send until no recipient is PENDING or SENDING (or WAIT_LIMIT_MS passed). */
async function settled(
  context: CommandContext,
  view: TestSendView,
  intervalMs: number,
): Promise<TestSendView> {
  const reporter = context.progress();
  const started = Date.now();
  let current = view;
  for (;;) {
    const open = current.recipients.filter((r) => UNSETTLED.has(r.state)).length;
    if (open === 0 || Date.now() - started > WAIT_LIMIT_MS) break;
    reporter.update(`waiting for ${open} of ${current.recipients.length} test messages`);
    await context.sleep(intervalMs);
    current = await context.api().testSends.get(view.campaignId, view.id);
  }
  reporter.finish();
  return current;
}

const testSend: CommandSpec = {
  group: 'campaigns',
  name: 'test-send',
  args: ['CAMPAIGN_ID'],
  options: ['to', 'var', 'wait', 'interval'],
  summary: "send the campaign's content to up to 10 recipients now (priority lane), before starting it",
  async run(context) {
    const { input } = context;
    const campaignId = input.arg(0, 'CAMPAIGN_ID');
    input.noMoreArgs(1);
    const to = input.list('to');
    if (to.length === 0) throw new UsageError('--to is required', input.usage);
    const variables = parseVariables(input.list('var'), input.usage);
    const interval = watchInterval(context);
    const created = await context.api().testSends.create(campaignId, {
      recipients: to.map((address) => ({ to: address })),
      ...(variables === undefined ? {} : { variables }),
    });
    const view = input.flag('wait') ? await settled(context, created, interval) : created;
    if (!input.flag('wait')) context.note(`see the results with "ums campaigns test-sends ${campaignId}"`);
    context.result(view, () => formatTestSend(view));
  },
};

const testSends: CommandSpec = {
  group: 'campaigns',
  name: 'test-sends',
  args: ['CAMPAIGN_ID'],
  options: ['limit', 'after'],
  summary: "a campaign's test sends, newest first, with each recipient's result",
  async run(context) {
    const { input } = context;
    const campaignId = input.arg(0, 'CAMPAIGN_ID');
    input.noMoreArgs(1);
    const limit = input.int('limit', { min: 1, max: 100 }) ?? 20;
    const page = await context.api().testSends.list(campaignId, { limit, after: input.string('after') });
    context.result(page, () => {
      const text = page.items.map(formatTestSend).join('\n');
      const shown = text === '' ? '(none)\n' : text;
      return page.nextAfter === null ? shown : `${shown}more: --after ${page.nextAfter}\n`;
    });
  },
};

export const TEST_SEND_COMMANDS: readonly CommandSpec[] = [testSend, testSends];
