import {
  type CampaignDetailView,
  type CampaignView,
  type ImportSummary,
  type JsonBodyOf,
  type SchedulerOperations,
  UmsApiError,
} from '@ums/client';
import { serviceChecked } from './api.client';
import { parseIsoTime } from './cli-args.parser';
import { ApiError, UsageError } from './cli.errors';
import type { CommandContext, CommandSpec } from './command.types';
import { fileChunks, startUpload, uploadSize } from './file-upload';
import { formatBytes, formatFields, formatTable, formatTime } from './output.formatter';
import { watchRun } from './run-watch';
import { RUN_HEADERS, runRows } from './run-view.formatter';

const DEFAULT_INTERVAL_MS = 1_000;

type CampaignBody = JsonBodyOf<SchedulerOperations['Campaigns_create']>;
type Country = NonNullable<CampaignBody['defaultCountry']>;

export function watchInterval(context: CommandContext): number {
  return context.input.int('interval', { min: 100, max: 3_600_000 }) ?? DEFAULT_INTERVAL_MS;
}

function scheduleText(c: CampaignView): string {
  switch (c.schedule.kind) {
    case 'at':
      return `at ${formatTime(c.schedule.at)}`;
    case 'cron':
      return `cron '${c.schedule.cron ?? ''}' ${c.schedule.timeZone}`;
    default:
      return c.schedule.kind;
  }
}

export function formatCampaign(c: CampaignDetailView): string {
  const head = formatFields([
    ['id', c.id],
    ['name', c.name],
    ['tenant', c.tenantId],
    ['channel', c.channel],
    ['credential', c.credentialId],
    ['state', c.state],
    ['priority', c.priority],
    ['schedule', scheduleText(c)],
    ['next fire', formatTime(c.nextFireAt)],
    ['audience', c.audienceSize],
    ['created', formatTime(c.createdAt)],
  ]);
  return `${head}\nruns (newest first):\n${formatTable(RUN_HEADERS, runRows(c.runs, c.audienceSize))}`;
}

/** An import's counters and first rejected lines (a campaign's audience or a contact list's). */
export function formatImport(
  summary: Pick<
    ImportSummary,
    'id' | 'state' | 'rowsRead' | 'rowsAccepted' | 'rowsRejected' | 'rowsDuplicate' | 'error' | 'firstRejects'
  >,
): string {
  const text = formatFields([
    ['import', summary.id],
    ['state', summary.state],
    ['rows read', summary.rowsRead],
    ['accepted', summary.rowsAccepted],
    ['rejected', summary.rowsRejected],
    ['duplicates', summary.rowsDuplicate],
    ...(summary.error === null ? [] : ([['error', summary.error]] as [string, string][])),
  ]);
  const rejects = summary.firstRejects;
  if (rejects.length === 0) return text;
  return `${text}\nfirst rejected lines:\n${formatTable(
    ['LINE', 'REASON'],
    rejects.map((r) => [r.line, r.reason]),
  )}`;
}

function templateFrom(context: CommandContext): CampaignBody['template'] {
  const { input } = context;
  const text = input.string('text');
  const subject = input.string('subject');
  const templateName = input.string('template-name');
  const language = input.string('template-language');
  const parameters = input.list('template-param');
  if (text === undefined && templateName === undefined) {
    throw new UsageError('give the message as --text or a provider template as --template-name', input.usage);
  }
  return {
    ...(text === undefined ? {} : { text }),
    ...(subject === undefined ? {} : { subject }),
    ...(templateName === undefined ? {} : { templateName }),
    ...(language === undefined ? {} : { templateLanguage: language }),
    ...(parameters.length > 0 ? { templateParameters: parameters } : {}),
  };
}

function scheduleFrom(context: CommandContext): CampaignBody['schedule'] {
  const { input } = context;
  const at = input.string('at');
  const cron = input.string('cron');
  const tz = input.string('tz');
  if (at !== undefined && cron !== undefined)
    throw new UsageError('give --at or --cron, not both', input.usage);
  if (tz !== undefined && cron === undefined) throw new UsageError('--tz goes with --cron', input.usage);
  if (at !== undefined) return { kind: 'at', at: parseIsoTime(at, '--at', input.usage) };
  if (cron !== undefined) return { kind: 'cron', cron, ...(tz === undefined ? {} : { timeZone: tz }) };
  return { kind: 'now' };
}

async function uploadCsv(context: CommandContext, campaignId: string, path: string): Promise<ImportSummary> {
  const { name, size, reporter, draw } = startUpload(context, 'csv', path);
  const started = Date.now();
  draw(0);
  try {
    const summary = await context.api().audience.uploadCsv(campaignId, {
      fileName: name,
      contentType: 'text/csv',
      content: fileChunks(path, (bytes) => {
        draw(bytes);
        if (bytes >= size)
          reporter.update(`imported ${formatBytes(size)}; waiting for the last rows to land`);
      }),
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    reporter.finish(`uploaded ${name}: ${summary.rowsAccepted} recipients accepted in ${seconds} s`);
    return summary;
  } catch (error: unknown) {
    reporter.finish();
    if (error instanceof UmsApiError) {
      // The campaign exists (DRAFT) even though its audience did not land: say which one.
      throw new ApiError(
        error.status,
        error.code,
        `${error.message} (campaign ${campaignId} was created; upload again with "ums campaigns upload ${campaignId} --csv FILE")`,
        error.fields,
        { ...error.details, campaignId },
      );
    }
    throw error;
  }
}

const create: CommandSpec = {
  group: 'campaigns',
  name: 'create',
  args: [],
  options: [
    'name',
    'channel',
    'credential',
    'csv',
    'text',
    'subject',
    'template-name',
    'template-language',
    'template-param',
    'country',
    'at',
    'cron',
    'tz',
    'priority',
    'start',
    'watch',
    'interval',
  ],
  required: ['name', 'channel', 'credential'],
  summary: 'create a campaign, upload its audience CSV (progress bar), optionally start and watch it',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const csv = input.string('csv');
    if (csv !== undefined) uploadSize(context, 'csv', csv);
    if (input.flag('watch') && !input.flag('start'))
      throw new UsageError('--watch needs --start', input.usage);
    const country = input.string('country');
    const priority = input.int('priority', { min: 1, max: 10 });
    const body: CampaignBody = {
      name: input.required('name'),
      channel: serviceChecked(input.required('channel')),
      credentialId: input.required('credential'),
      template: templateFrom(context),
      ...(country === undefined ? {} : { defaultCountry: serviceChecked<Country>(country) }),
      schedule: scheduleFrom(context),
      ...(priority === undefined ? {} : { priority }),
    };
    const interval = watchInterval(context);
    const campaign = await context.api().campaigns.create(body);
    context.note(`created campaign ${campaign.id} (${campaign.state})`);
    const imported = csv === undefined ? undefined : await uploadCsv(context, campaign.id, csv);
    let detail: CampaignDetailView | undefined;
    if (input.flag('start')) {
      detail = await context.api().campaigns.act(campaign.id, 'start');
      context.note(`started campaign ${campaign.id} (${detail.state})`);
      if (input.flag('watch')) detail = (await watchRun(context, campaign.id, undefined, interval)).campaign;
    }
    context.result({ campaign: detail ?? campaign, import: imported ?? null }, () => {
      const parts = [
        detail === undefined
          ? formatFields([
              ['id', campaign.id],
              ['name', campaign.name],
              ['state', campaign.state],
              ['schedule', scheduleText(campaign)],
            ])
          : formatCampaign(detail),
      ];
      if (imported !== undefined) parts.push(`\naudience:\n${formatImport(imported)}`);
      return parts.join('');
    });
  },
};

const upload: CommandSpec = {
  group: 'campaigns',
  name: 'upload',
  args: ['CAMPAIGN_ID'],
  options: ['csv'],
  required: ['csv'],
  summary: "add recipients from a CSV to a DRAFT, ACTIVE or PAUSED campaign's audience (progress bar)",
  async run(context) {
    const { input } = context;
    const id = input.arg(0, 'CAMPAIGN_ID');
    input.noMoreArgs(1);
    const summary = await uploadCsv(context, id, input.required('csv'));
    context.result(summary, () => formatImport(summary));
  },
};

const list: CommandSpec = {
  group: 'campaigns',
  name: 'list',
  args: [],
  options: ['limit', 'after'],
  summary: 'list campaigns (oldest first, a page at a time)',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const limit = input.int('limit', { min: 1, max: 500 }) ?? 50;
    const page = await context.api().campaigns.list({ limit, after: input.string('after') });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'TENANT', 'NAME', 'CHANNEL', 'STATE', 'SCHEDULE', 'NEXT FIRE', 'CREATED'],
        page.items.map((c) => [
          c.id,
          c.tenantId,
          c.name,
          c.channel,
          c.state,
          scheduleText(c),
          formatTime(c.nextFireAt),
          formatTime(c.createdAt),
        ]),
      );
      const last = page.items[page.items.length - 1];
      return page.items.length === limit && last !== undefined ? `${table}more: --after ${last.id}\n` : table;
    });
  },
};

const show: CommandSpec = {
  group: 'campaigns',
  name: 'show',
  args: ['CAMPAIGN_ID'],
  options: ['watch', 'interval', 'run'],
  summary: 'a campaign with its latest runs and their progress; --watch follows the run until it ends',
  async run(context) {
    const { input } = context;
    const id = input.arg(0, 'CAMPAIGN_ID');
    input.noMoreArgs(1);
    const interval = watchInterval(context);
    const runId = input.string('run');
    if (runId !== undefined && !input.flag('watch'))
      throw new UsageError('--run goes with --watch', input.usage);
    const campaign = input.flag('watch')
      ? (await watchRun(context, id, runId, interval)).campaign
      : await context.api().campaigns.get(id);
    context.result(campaign, () => formatCampaign(campaign));
  },
};

const update: CommandSpec = {
  group: 'campaigns',
  name: 'update',
  args: ['CAMPAIGN_ID'],
  options: ['priority'],
  required: ['priority'],
  summary: "change a campaign's priority (1-10: its weight in the credential's fair share)",
  async run(context) {
    const { input } = context;
    const id = input.arg(0, 'CAMPAIGN_ID');
    input.noMoreArgs(1);
    const priority = input.int('priority', { min: 1, max: 10 }) as number;
    const campaign = await context.api().campaigns.update(id, { priority });
    context.result(campaign, () => formatCampaign(campaign));
  },
};

function campaignAction(
  name: 'start' | 'pause' | 'resume' | 'stop' | 'archive',
  summary: string,
): CommandSpec {
  return {
    group: 'campaigns',
    name,
    args: ['CAMPAIGN_ID'],
    options: [],
    summary,
    async run(context) {
      const id = context.input.arg(0, 'CAMPAIGN_ID');
      context.input.noMoreArgs(1);
      const campaign = await context.api().campaigns.act(id, name);
      context.result(
        campaign,
        () => `campaign ${campaign.id} is ${campaign.state}\n${formatCampaign(campaign)}`,
      );
    },
  };
}

export const CAMPAIGN_COMMANDS: readonly CommandSpec[] = [
  create,
  upload,
  list,
  show,
  update,
  campaignAction('start', 'start a DRAFT campaign (its run fires now, at its time, or by cron)'),
  campaignAction('pause', 'pause an ACTIVE campaign and its runs'),
  campaignAction('resume', 'resume a PAUSED campaign and its runs'),
  campaignAction('stop', 'stop a campaign and its runs for good'),
  campaignAction('archive', 'archive a finished campaign'),
];
