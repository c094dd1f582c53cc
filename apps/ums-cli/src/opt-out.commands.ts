import { open, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { OptOutImportSummary, OptOutView, QueryOf, SchedulerOperations } from '@ums/client';
import { connectionError, serviceChecked } from './api.client';
import { UsageError } from './cli.errors';
import type { CommandContext, CommandSpec } from './command.types';
import { uploadCsvFile } from './file-upload';
import { formatBytes, formatFields, formatTable, formatTime } from './output.formatter';

type Channel = OptOutView['channel'];
type Country = NonNullable<QueryOf<SchedulerOperations['OptOuts_list']>['defaultCountry']>;

const CHANNELS: readonly Channel[] = ['whatsapp', 'sms', 'email'];

function channelArg(context: CommandContext): Channel {
  const text = context.input.arg(0, 'CHANNEL');
  const channel = CHANNELS.find((known) => known === text);
  if (channel === undefined) {
    throw new UsageError(
      `CHANNEL must be one of ${CHANNELS.join(', ')}, got ${JSON.stringify(text)}`,
      context.input.usage,
    );
  }
  return channel;
}

/** `--country`, for the service to check (an unknown code is its 400, naming the field). */
function countryOf(context: CommandContext): Country | undefined {
  return serviceChecked<Country>(context.input.string('country'));
}

function formatOptOut(o: OptOutView): string {
  return formatFields([
    ['channel', o.channel],
    ['address', o.address],
    ['source', o.source],
    ['since', formatTime(o.createdAt)],
  ]);
}

function formatImport(summary: OptOutImportSummary): string {
  const text = formatFields([
    ['rows read', summary.rowsRead],
    ['added', summary.rowsAdded],
    ['already opted out', summary.rowsDuplicate],
    ['rejected', summary.rowsRejected],
  ]);
  if (summary.rejects.length === 0) return text;
  const more = summary.rejectsOmitted > 0 ? `and ${summary.rejectsOmitted} more rejected rows\n` : '';
  return `${text}\nrejected rows:\n${formatTable(
    ['LINE', 'REASON', 'ROW'],
    summary.rejects.map((r) => [r.line, r.reason, r.raw]),
  )}${more}`;
}

const list: CommandSpec = {
  group: 'opt-outs',
  name: 'list',
  args: [],
  options: ['channel', 'address', 'country', 'limit', 'after'],
  summary: 'list opted-out addresses in channel and address order (--address: one address, any spelling)',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const page = await context.api().optOuts.list({
      channel: serviceChecked<Channel>(input.string('channel')),
      address: input.string('address'),
      defaultCountry: countryOf(context),
      limit: input.int('limit', { min: 1, max: 1000 }),
      after: input.string('after'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['CHANNEL', 'ADDRESS', 'SOURCE', 'SINCE'],
        page.items.map((o) => [o.channel, o.address, o.source, formatTime(o.createdAt)]),
      );
      return page.nextAfter === null ? table : `${table}more: --after '${page.nextAfter}'\n`;
    });
  },
};

const add: CommandSpec = {
  group: 'opt-outs',
  name: 'add',
  args: ['CHANNEL', 'ADDRESS'],
  options: ['country'],
  summary: 'opt an address out of a channel (stored normalized; an existing opt-out is kept as it is)',
  async run(context) {
    const channel = channelArg(context);
    const address = context.input.arg(1, 'ADDRESS');
    context.input.noMoreArgs(2);
    const optOut = await context.api().optOuts.add(channel, address, { defaultCountry: countryOf(context) });
    context.result(optOut, () => formatOptOut(optOut));
  },
};

const remove: CommandSpec = {
  group: 'opt-outs',
  name: 'remove',
  args: ['CHANNEL', 'ADDRESS'],
  options: ['country'],
  summary: 'opt an address back in (sends to it go out again)',
  async run(context) {
    const channel = channelArg(context);
    const address = context.input.arg(1, 'ADDRESS');
    context.input.noMoreArgs(2);
    await context.api().optOuts.remove(channel, address, { defaultCountry: countryOf(context) });
    context.result(
      { channel, address, removed: true },
      () => `removed the opt-out of ${channel} ${address}\n`,
    );
  },
};

const importCsv: CommandSpec = {
  group: 'opt-outs',
  name: 'import',
  args: [],
  options: ['csv', 'country'],
  required: ['csv'],
  summary: 'upload a CSV of opt-outs (header channel,address[,source]); bad rows are listed with their line',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const path = input.required('csv');
    const summary = await uploadCsvFile(
      context,
      { option: 'csv', path },
      (part) => context.api().optOuts.importCsv(part, { defaultCountry: countryOf(context) }),
      (result, name) => `uploaded ${name}: ${result.rowsAdded} opt-outs added`,
    );
    context.result(summary, () => formatImport(summary));
  },
};

const exportCsv: CommandSpec = {
  group: 'opt-outs',
  name: 'export',
  args: [],
  options: ['output', 'channel'],
  required: ['output'],
  summary: "download every opt-out (or one channel's) as CSV into a file; it imports again as it is",
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const path = input.required('output');
    // Opened before anything is asked, so a path that cannot be written is a usage error.
    const file = await open(path, 'w').catch((error: unknown) => {
      const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
      throw new UsageError(`cannot write --output ${path} (${code})`, input.usage);
    });
    let lines = 0;
    let bytes = 0;
    try {
      const api = context.api();
      const csv = await api.optOuts.exportCsv({ channel: serviceChecked<Channel>(input.string('channel')) });
      async function* counted(): AsyncGenerator<Uint8Array> {
        for await (const chunk of csv) {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 0x0a) lines++;
          yield chunk;
        }
      }
      // Streamed into the file as it comes: a connection lost meanwhile is the service's (exit 3).
      await pipeline(counted(), file.createWriteStream()).catch((error: unknown) => {
        throw connectionError(error, api.transport.service, api.transport.baseUrl);
      });
    } catch (error: unknown) {
      // A refused or cut-off export leaves no file that looks like one.
      await file.close().catch(() => undefined);
      await unlink(path).catch(() => undefined);
      throw error;
    }
    const rows = Math.max(0, lines - 1);
    context.result(
      { file: path, rows, bytes },
      () => `wrote ${rows} opt-outs (${formatBytes(bytes)}) to ${path}\n`,
    );
  },
};

export const OPT_OUT_COMMANDS: readonly CommandSpec[] = [list, add, remove, importCsv, exportCsv];
