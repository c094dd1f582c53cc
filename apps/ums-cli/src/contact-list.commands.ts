import type { CampaignApiClient } from '@ums/client';
import { serviceChecked } from './api.client';
import { UsageError } from './cli.errors';
import { formatImport } from './campaign.commands';
import type { CommandContext, CommandSpec } from './command.types';
import { uploadCsvFile } from './file-upload';
import { formatFields, formatTable, formatTime } from './output.formatter';

type ListView = Awaited<ReturnType<CampaignApiClient['contactLists']['get']>>;
type ListImport = Awaited<ReturnType<CampaignApiClient['contactLists']['getImport']>>;
type Country = NonNullable<Parameters<CampaignApiClient['contactLists']['create']>[0]['defaultCountry']>;

function formatList(list: ListView): string {
  return formatFields([
    ['id', list.id],
    ['name', list.name],
    ['channel', list.channel],
    ['default country', list.defaultCountry ?? '-'],
    ['members', list.memberCount],
    ['created', formatTime(list.createdAt)],
    ['updated', formatTime(list.updatedAt)],
  ]);
}

/**
 * `--where city=Berlin --where plan=gold,silver` as a segment's attributes: each `name=value[,value...]`;
 * the same name again adds values. The service checks names and values (a 400 names the field).
 */
export function segmentFromWhere(
  pairs: readonly string[],
  usage: string,
): Record<string, string[]> | undefined {
  if (pairs.length === 0) return undefined;
  const attributes: Record<string, string[]> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--where ${JSON.stringify(pair)} is not NAME=VALUE[,VALUE...]`, usage);
    const name = pair.slice(0, at).trim();
    attributes[name] = [...(attributes[name] ?? []), ...pair.slice(at + 1).split(',')];
  }
  return attributes;
}

const create: CommandSpec = {
  group: 'lists',
  name: 'create',
  args: [],
  options: ['name', 'channel', 'country'],
  required: ['name', 'channel'],
  summary: 'create an empty contact list of a channel (import its members with "ums lists import")',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const country = input.string('country');
    const list = await context.api().contactLists.create({
      name: input.required('name'),
      channel: serviceChecked(input.required('channel')),
      ...(country === undefined ? {} : { defaultCountry: serviceChecked<Country>(country) }),
    });
    context.result(list, () => formatList(list));
  },
};

const show: CommandSpec = {
  group: 'lists',
  name: 'show',
  args: ['LIST_ID?'],
  options: ['limit', 'before'],
  summary: 'show one contact list, or without LIST_ID list them newest first',
  async run(context) {
    const { input } = context;
    const id = input.args[0];
    input.noMoreArgs(1);
    if (id !== undefined) {
      const list = await context.api().contactLists.get(id);
      context.result(list, () => formatList(list));
      return;
    }
    const page = await context.api().contactLists.list({
      limit: input.int('limit', { min: 1, max: 100 }),
      before: input.string('before'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'NAME', 'CHANNEL', 'MEMBERS', 'UPDATED'],
        page.items.map((l) => [l.id, l.name, l.channel, l.memberCount, formatTime(l.updatedAt)]),
      );
      return page.nextBefore === null ? table : `${table}more: --before ${page.nextBefore}\n`;
    });
  },
};

async function uploadFile(context: CommandContext, listId: string, path: string): Promise<ListImport> {
  return uploadCsvFile(
    context,
    { option: 'file', path },
    (part) => context.api().contactLists.importCsv(listId, part),
    (summary, name) => `uploaded ${name}: ${summary.rowsAccepted} members added`,
  );
}

const importMembers: CommandSpec = {
  group: 'lists',
  name: 'import',
  args: ['LIST_ID'],
  options: ['file', 'url'],
  summary: 'add members from a CSV file (--file, progress bar) or a URL the service fetches (--url)',
  async run(context) {
    const { input } = context;
    const id = input.arg(0, 'LIST_ID');
    input.noMoreArgs(1);
    const file = input.string('file');
    const url = input.string('url');
    if ((file === undefined) === (url === undefined)) {
      throw new UsageError('give exactly one of --file FILE or --url URL', input.usage);
    }
    const summary =
      file === undefined
        ? await context.api().contactLists.importUrl(id, { url: url as string })
        : await uploadFile(context, id, file);
    if (file === undefined) context.note(`import ${summary.id} runs; see it with "ums lists show ${id}"`);
    context.result(summary, () => formatImport(summary));
  },
};

const members: CommandSpec = {
  group: 'lists',
  name: 'members',
  args: ['LIST_ID'],
  options: ['limit', 'after'],
  summary: "a page of a list's members in import order, with their variables",
  async run(context) {
    const { input } = context;
    const id = input.arg(0, 'LIST_ID');
    input.noMoreArgs(1);
    const page = await context.api().contactLists.members(id, {
      limit: input.int('limit', { min: 1, max: 1000 }),
      after: input.string('after'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'ADDRESS', 'VARIABLES'],
        page.items.map((m) => [m.id, m.address, m.variables === null ? '' : JSON.stringify(m.variables)]),
      );
      return page.nextAfter === null ? table : `${table}more: --after ${page.nextAfter}\n`;
    });
  },
};

const useList: CommandSpec = {
  group: 'campaigns',
  name: 'use-list',
  args: ['CAMPAIGN_ID', 'LIST_ID'],
  options: ['where'],
  summary: "add a contact list's members (those matching every --where) to a campaign's audience",
  async run(context) {
    const { input } = context;
    const campaignId = input.arg(0, 'CAMPAIGN_ID');
    const listId = input.arg(1, 'LIST_ID');
    input.noMoreArgs(2);
    const attributes = segmentFromWhere(input.list('where'), input.usage);
    const summary = await context.api().contactLists.useInCampaign(campaignId, {
      listId,
      ...(attributes === undefined ? {} : { segment: { attributes } }),
    });
    context.result(summary, () => formatImport(summary));
  },
};

export const CONTACT_LIST_COMMANDS: readonly CommandSpec[] = [create, show, importMembers, members];
export const CAMPAIGN_LIST_COMMANDS: readonly CommandSpec[] = [useList];
