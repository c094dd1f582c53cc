import { UsageError } from './cli.errors';
import type { CommandContext, CommandSpec } from './command.types';
import { formatFields, formatTable, formatTime } from './output.formatter';

/** Characters of a reason or value shown in a table cell. */
const CELL = 60;

function clip(text: string | null, max = CELL): string | null {
  if (text === null) return null;
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function filters(context: CommandContext): {
  sourceTopic: string | undefined;
  errorCode: string | undefined;
  consumerGroup: string | undefined;
} {
  const { input } = context;
  return {
    sourceTopic: input.string('topic'),
    errorCode: input.string('error-code'),
    consumerGroup: input.string('group'),
  };
}

const list: CommandSpec = {
  group: 'dead-letters',
  name: 'list',
  args: [],
  options: ['topic', 'error-code', 'group', 'open', 'replayed', 'limit', 'before'],
  summary: 'messages consumers refused or gave up on (ums.dead-letters.v1), newest first',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    if (input.flag('open') && input.flag('replayed')) {
      throw new UsageError('give --open or --replayed, not both', input.usage);
    }
    const page = await context.api().deadLetters.list({
      ...filters(context),
      replayed: input.flag('open') ? false : input.flag('replayed') ? true : undefined,
      limit: input.int('limit', { min: 1, max: 500 }),
      before: input.string('before'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'FAILED', 'TOPIC', 'PARTITION:OFFSET', 'GROUP', 'CODE', 'REASON', 'REPLAYS'],
        page.items.map((d) => [
          d.id,
          formatTime(d.failedAt),
          d.sourceTopic,
          `${d.sourcePartition}:${d.sourceOffset}`,
          d.consumerGroup,
          d.errorCode,
          clip(d.reason),
          d.replays,
        ]),
      );
      return page.nextBefore === null ? table : `${table}more: --before ${page.nextBefore}\n`;
    });
  },
};

const show: CommandSpec = {
  group: 'dead-letters',
  name: 'show',
  args: ['DEAD_LETTER_ID'],
  options: [],
  summary: 'one dead letter: origin, error, headers and the message itself',
  async run(context) {
    const id = context.input.arg(0, 'DEAD_LETTER_ID');
    context.input.noMoreArgs(1);
    const letter = await context.api().deadLetters.get(id);
    context.result(
      letter,
      () =>
        formatFields([
          ['id', letter.id],
          ['failed', formatTime(letter.failedAt)],
          [
            'source',
            `${letter.sourceTopic} partition ${letter.sourcePartition} offset ${letter.sourceOffset}`,
          ],
          ['consumer group', letter.consumerGroup],
          ['error', `${letter.errorCode} after ${letter.attempts} attempt(s)`],
          ['reason', letter.reason],
          ['replays to', letter.replayTo ?? '(cannot be replayed)'],
          ['replays', letter.replays],
          ['last replay', formatTime(letter.replayedAt)],
          ['key', letter.key],
          ['headers', JSON.stringify(letter.headers)],
        ]) + `value (${letter.valueEncoding}):\n${letter.value ?? '(none)'}\n`,
    );
  },
};

const replay: CommandSpec = {
  group: 'dead-letters',
  name: 'replay',
  args: ['DEAD_LETTER_ID...?'],
  options: ['topic', 'error-code', 'group', 'include-replayed', 'limit'],
  summary: 'publish dead letters again to the topic they came from, once their cause is fixed',
  async run(context) {
    const { input } = context;
    const ids = input.args.slice(0);
    const filter = filters(context);
    const byFilter = Object.values(filter).some((v) => v !== undefined);
    if (ids.length > 0 === byFilter) {
      throw new UsageError(
        'give DEAD_LETTER_ID(s), or at least one of --topic, --error-code, --group (not both)',
        input.usage,
      );
    }
    if (ids.length > 0 && (input.flag('include-replayed') || input.string('limit') !== undefined)) {
      throw new UsageError('--include-replayed and --limit go with the filters, not with ids', input.usage);
    }
    const body =
      ids.length > 0
        ? { ids }
        : {
            ...filter,
            includeReplayed: input.flag('include-replayed') || undefined,
            limit: input.int('limit', { min: 1, max: 10_000 }),
          };
    const result = await context.api().deadLetters.replay(body);
    context.result(result, () => {
      const lines = [`${result.replayed.length} dead letter(s) published again`];
      for (const r of result.refused) lines.push(`not replayed: ${r.id}: ${r.reason}`);
      return `${lines.join('\n')}\n`;
    });
  },
};

export const DEAD_LETTER_COMMANDS: readonly CommandSpec[] = [list, show, replay];
