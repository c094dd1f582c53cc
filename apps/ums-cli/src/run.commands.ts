import type { QueryOf, RunView, SchedulerOperations } from '@ums/client';
import { UsageError } from './cli.errors';
import { watchInterval } from './campaign.commands';
import { formatRun, RUN_HEADERS, runRows } from './run-view.formatter';
import type { CommandContext, CommandSpec } from './command.types';
import { formatTable, formatTime } from './output.formatter';
import { watchRun } from './run-watch';

type MessageState = NonNullable<QueryOf<SchedulerOperations['Messages_list']>['state']>[number];

const MESSAGE_STATES: readonly MessageState[] = [
  'PENDING',
  'SENDING',
  'SENT',
  'DELIVERED',
  'READ',
  'FAILED',
  'UNKNOWN',
  'SKIPPED',
];

/** `--state FAILED,unknown` as the states it names; a state the API does not know is a usage error. */
function messageStates(text: string | undefined, usage: string): MessageState[] | undefined {
  if (text === undefined) return undefined;
  return text
    .toUpperCase()
    .split(',')
    .map((s) => {
      const state = MESSAGE_STATES.find((known) => known === s.trim());
      if (state === undefined) {
        throw new UsageError(`--state must be among ${MESSAGE_STATES.join(', ')}, got ${s}`, usage);
      }
      return state;
    });
}

/** Run ids are decimal; checking here turns a swapped argument order into a usage error, not a 400. */
function runIds(context: CommandContext): { campaignId: string; runId: string } {
  const { input } = context;
  const campaignId = input.arg(0, 'CAMPAIGN_ID');
  const runId = input.arg(1, 'RUN_ID');
  input.noMoreArgs(2);
  if (!/^\d{1,20}$/.test(runId)) {
    throw new UsageError(`RUN_ID must be a decimal run id, got ${JSON.stringify(runId)}`, input.usage);
  }
  return { campaignId, runId };
}

const list: CommandSpec = {
  group: 'runs',
  name: 'list',
  args: ['CAMPAIGN_ID'],
  options: ['limit', 'before'],
  summary: "a campaign's runs, newest first, with progress counters",
  async run(context) {
    const { input } = context;
    const campaignId = input.arg(0, 'CAMPAIGN_ID');
    input.noMoreArgs(1);
    const limit = input.int('limit', { min: 1, max: 500 }) ?? 50;
    const page = await context.api().runs.list(campaignId, { limit, before: input.string('before') });
    context.result(page, () => {
      const table = formatTable(RUN_HEADERS, runRows(page.items, 0));
      const last = page.items[page.items.length - 1];
      return page.items.length === limit && last !== undefined
        ? `${table}more: --before ${last.id}\n`
        : table;
    });
  },
};

const show: CommandSpec = {
  group: 'runs',
  name: 'show',
  args: ['CAMPAIGN_ID', 'RUN_ID'],
  options: ['watch', 'interval'],
  summary: 'one run: state, checkpoint, counters; --watch follows it until it ends',
  async run(context) {
    const { campaignId, runId } = runIds(context);
    const interval = watchInterval(context);
    let run: RunView;
    let audienceSize = 0;
    if (context.input.flag('watch')) {
      const watched = await watchRun(context, campaignId, runId, interval);
      audienceSize = watched.campaign.audienceSize;
      run = watched.run ?? (await context.api().runs.get(campaignId, runId));
    } else {
      run = await context.api().runs.get(campaignId, runId);
    }
    context.result(run, () => formatRun(run, audienceSize));
  },
};

type RunActionName = 'pause' | 'resume' | 'stop' | 'cancel' | 'retry-failed' | 'resend-unknown';

function runAction(name: RunActionName, summary: string): CommandSpec {
  return {
    group: 'runs',
    name,
    args: ['CAMPAIGN_ID', 'RUN_ID'],
    options: [],
    summary,
    async run(context) {
      const { campaignId, runId } = runIds(context);
      const result = await context.api().runs.act(campaignId, runId, name);
      context.result(result, () => {
        const requeued = result.requeued === undefined ? '' : ` (${result.requeued} messages requeued)`;
        return `run ${result.run.id} is ${result.run.state}${requeued}\n${formatTable(RUN_HEADERS, runRows([result.run], 0))}`;
      });
    },
  };
}

const messages: CommandSpec = {
  group: 'runs',
  name: 'messages',
  args: ['CAMPAIGN_ID', 'RUN_ID'],
  options: ['state', 'recipient', 'limit', 'after'],
  summary: "a run's messages (e.g. --state FAILED,UNKNOWN), a page at a time",
  async run(context) {
    const { campaignId, runId } = runIds(context);
    const { input } = context;
    const state = messageStates(input.string('state'), input.usage);
    const page = await context.api().messages.list(campaignId, runId, {
      state,
      recipient: input.string('recipient'),
      limit: input.int('limit', { min: 1, max: 1000 }),
      after: input.string('after'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'RECIPIENT', 'STATE', 'ATTEMPTS', 'ERROR', 'REASON', 'UPDATED'],
        page.items.map((m) => [
          m.id,
          m.recipient,
          m.state,
          m.attempts,
          m.errorCode,
          m.reason,
          formatTime(m.updatedAt),
        ]),
      );
      return page.nextAfter === null ? table : `${table}more: --after ${page.nextAfter}\n`;
    });
  },
};

const refreshStatus: CommandSpec = {
  group: 'runs',
  name: 'refresh-status',
  args: ['CAMPAIGN_ID', 'RUN_ID'],
  options: [],
  summary: 'ask the providers now about UNKNOWN and SENT messages of a run (nothing is resent)',
  async run(context) {
    const { campaignId, runId } = runIds(context);
    const view = await context.api().statusRefresh.request(campaignId, runId);
    context.result(view, () => {
      const last = view.lastRefresh;
      const settled =
        last === null
          ? ''
          : `last refresh ${formatTime(last.requestedAt)}${last.finishedAt === null ? ' (in progress)' : `, finished ${formatTime(last.finishedAt)}`}: ` +
            `sent ${last.settled.sent}, delivered ${last.settled.delivered}, read ${last.settled.read}, ` +
            `failed ${last.settled.failed}, not received ${last.settled.notReceived}, unresolved ${last.unresolved}\n`;
      return `refresh requested for run ${view.runId}: ${view.unsettled.unknown} UNKNOWN, ${view.unsettled.sentWithoutCallback} SENT without callback\n${settled}`;
    });
  },
};

export const RUN_COMMANDS: readonly CommandSpec[] = [
  list,
  show,
  messages,
  runAction('pause', 'pause a SCHEDULED or RUNNING run (the expander stops within a poll)'),
  runAction('resume', 'resume a PAUSED run from its checkpoint'),
  runAction('stop', 'stop a RUNNING or PAUSED run for good (PENDING messages stay unsent)'),
  runAction('cancel', 'cancel a run that has not started'),
  runAction('retry-failed', 'put FAILED messages back to PENDING and run them again'),
  runAction(
    'resend-unknown',
    'put UNKNOWN (and FAILED not-received) messages back to PENDING and send them again (on purpose only)',
  ),
  refreshStatus,
];
