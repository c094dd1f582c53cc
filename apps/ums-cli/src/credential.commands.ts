import { readFileSync } from 'node:fs';
import type { CredentialView } from '@ums/client';
import { serviceChecked } from './api.client';
import { parseSettings } from './cli-args.parser';
import { UsageError } from './cli.errors';
import type { CommandSpec } from './command.types';
import { formatFields, formatTable } from './output.formatter';

function formatCredential(c: CredentialView): string {
  return formatFields([
    ['id', c.id],
    ['tenant', c.tenantId],
    ['name', c.name],
    ['provider', c.provider],
    ['channel', c.channel],
    ['secret stored', c.hasSecret],
    ['rate', `${c.rateFloorPerSec}..${c.rateCeilingPerSec}/s`],
  ]);
}

const create: CommandSpec = {
  group: 'credentials',
  name: 'create',
  args: [],
  options: [
    'name',
    'provider',
    'channel',
    'config',
    'secret-file',
    'rate-ceiling',
    'rate-floor',
    'tenant-rate-cap',
  ],
  required: ['name', 'provider', 'channel', 'rate-ceiling'],
  summary: 'register a provider account (the secret is read from a file, never from the command line)',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const ceiling = input.int('rate-ceiling', { min: 1, max: 100_000 }) as number;
    const floor = input.int('rate-floor', { min: 1, max: 100_000 }) ?? Math.max(1, Math.floor(ceiling / 10));
    const cap = input.int('tenant-rate-cap', { min: 1, max: 100_000 });
    const secretFile = input.string('secret-file');
    let secret: string | undefined;
    if (secretFile !== undefined) {
      try {
        secret = readFileSync(secretFile, 'utf8').trim();
      } catch (error: unknown) {
        const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
        throw new UsageError(`cannot read --secret-file ${secretFile} (${code})`, input.usage);
      }
    }
    const config = parseSettings(input.list('config'), '--config');
    const credential = await context.api().credentials.create({
      name: input.required('name'),
      provider: serviceChecked(input.required('provider')),
      channel: serviceChecked(input.required('channel')),
      ...(Object.keys(config).length > 0 ? { config } : {}),
      ...(secret === undefined ? {} : { secret }),
      rateCeilingPerSec: ceiling,
      rateFloorPerSec: floor,
      ...(cap === undefined ? {} : { tenantRateCapPerSec: cap }),
    });
    context.result(credential, () => formatCredential(credential));
  },
};

const list: CommandSpec = {
  group: 'credentials',
  name: 'list',
  args: [],
  options: ['limit', 'after'],
  summary: 'list provider credentials',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const page = await context.api().credentials.list({
      limit: input.int('limit', { min: 1, max: 500 }),
      after: input.string('after'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'TENANT', 'NAME', 'PROVIDER', 'CHANNEL', 'SECRET', 'RATE/S'],
        page.items.map((c) => [
          c.id,
          c.tenantId,
          c.name,
          c.provider,
          c.channel,
          c.hasSecret ? 'yes' : 'no',
          `${c.rateFloorPerSec}..${c.rateCeilingPerSec}`,
        ]),
      );
      return page.nextAfter === null ? table : `${table}more: --after ${page.nextAfter}\n`;
    });
  },
};

const show: CommandSpec = {
  group: 'credentials',
  name: 'show',
  args: ['CREDENTIAL_ID'],
  options: [],
  summary: 'one credential (never its secret)',
  async run(context) {
    const id = context.input.arg(0, 'CREDENTIAL_ID');
    context.input.noMoreArgs(1);
    const credential = await context.api().credentials.get(id);
    context.result(credential, () => formatCredential(credential));
  },
};

export const CREDENTIAL_COMMANDS: readonly CommandSpec[] = [create, list, show];
