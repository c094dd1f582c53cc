import type { ApiKeyView, JsonBodyOf, SchedulerOperations } from '@ums/client';
import { serviceChecked } from './api.client';
import { parseIsoTime } from './cli-args.parser';
import { UsageError } from './cli.errors';
import type { CommandSpec } from './command.types';
import { formatFields, formatTable, formatTime } from './output.formatter';

function keyFields(k: ApiKeyView): [string, string | null][] {
  return [
    ['id', k.id],
    ['tenant', k.tenantId],
    ['name', k.name],
    ['scopes', k.scopes.join(', ')],
    ['prefix', k.prefix],
    ['created', `${formatTime(k.createdAt)} by ${k.createdBy}`],
    ['expires', formatTime(k.expiresAt)],
    ['revoked', formatTime(k.revokedAt)],
  ];
}

function withMore(table: string, next: string | null, flag: string): string {
  return next === null ? table : `${table}more: ${flag} ${next}\n`;
}

type Scopes = NonNullable<JsonBodyOf<SchedulerOperations['ApiKeys_create']>['scopes']>;

/** `a, b` as ['a', 'b']; left out, the service gives the new key all of the caller's scopes. */
function scopesOf(text: string | undefined, usage: string): Scopes | undefined {
  if (text === undefined) return undefined;
  const scopes = text
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope !== '')
    .map((scope) => serviceChecked<Scopes[number]>(scope));
  if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope', usage);
  return scopes;
}

const create: CommandSpec = {
  group: 'keys',
  name: 'create',
  args: [],
  options: ['name', 'scopes', 'expires-at'],
  required: ['name'],
  summary: 'create an API key of a tenant (the operator names it with --tenant); the key is shown once',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const scopes = scopesOf(input.string('scopes'), input.usage);
    const expiresAt = input.string('expires-at');
    const created = await context.api().apiKeys.create({
      name: input.required('name'),
      ...(scopes === undefined ? {} : { scopes }),
      ...(expiresAt === undefined ? {} : { expiresAt: parseIsoTime(expiresAt, '--expires-at', input.usage) }),
    });
    context.result(created, () => formatFields([...keyFields(created), ['key', created.key]]));
    context.note(
      `warning: the key is shown this once and cannot be shown again: store it now (a secret manager, ` +
        `or a file only you can read); revoke it with "ums keys revoke ${created.id}"`,
    );
  },
};

const list: CommandSpec = {
  group: 'keys',
  name: 'list',
  args: [],
  options: ['limit', 'after'],
  summary: "the tenant's API keys, revoked ones too (never a key itself); the operator: every tenant's",
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const page = await context.api().apiKeys.list({
      limit: input.int('limit', { min: 1, max: 500 }),
      after: input.string('after'),
    });
    context.result(page, () =>
      withMore(
        formatTable(
          ['ID', 'TENANT', 'NAME', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED'],
          page.items.map((k) => [
            k.id,
            k.tenantId,
            k.name,
            k.scopes.join(','),
            formatTime(k.createdAt),
            formatTime(k.expiresAt),
            formatTime(k.revokedAt),
          ]),
        ),
        page.next,
        '--after',
      ),
    );
  },
};

const show: CommandSpec = {
  group: 'keys',
  name: 'show',
  args: ['KEY_ID'],
  options: [],
  summary: 'one API key: tenant, scopes, expiry, revocation (never the key itself)',
  async run(context) {
    const id = context.input.arg(0, 'KEY_ID');
    context.input.noMoreArgs(1);
    const key = await context.api().apiKeys.get(id);
    context.result(key, () => formatFields(keyFields(key)));
  },
};

const revoke: CommandSpec = {
  group: 'keys',
  name: 'revoke',
  args: ['KEY_ID'],
  options: [],
  summary: 'revoke an API key: every replica refuses it within seconds (it stays listed)',
  async run(context) {
    const id = context.input.arg(0, 'KEY_ID');
    context.input.noMoreArgs(1);
    const key = await context.api().apiKeys.revoke(id);
    context.result(key, () => `key ${key.id} (${key.name}) revoked at ${formatTime(key.revokedAt)}\n`);
  },
};

const auditList: CommandSpec = {
  group: 'audit',
  name: 'list',
  args: [],
  options: ['action', 'principal', 'since', 'limit', 'before'],
  summary: "state-changing calls and refusals, newest first: the tenant's; the operator: every tenant's",
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const since = input.string('since');
    const page = await context.api().audit.list({
      action: input.string('action'),
      principalId: input.string('principal'),
      since: since === undefined ? undefined : parseIsoTime(since, '--since', input.usage),
      limit: input.int('limit', { min: 1, max: 500 }),
      before: input.string('before'),
    });
    context.result(page, () =>
      withMore(
        formatTable(
          ['ID', 'TIME', 'PRINCIPAL', 'TENANT', 'SERVICE', 'ACTION', 'TARGET', 'STATUS', 'RESULT'],
          page.items.map((e) => [
            e.id,
            formatTime(e.occurredAt),
            e.principalKind === 'operator' ? 'operator' : `${e.principalKind}:${e.principalId}`,
            e.tenantId,
            e.service,
            e.action,
            e.target,
            e.status,
            e.result,
          ]),
        ),
        page.next,
        '--before',
      ),
    );
  },
};

export const KEY_COMMANDS: readonly CommandSpec[] = [create, list, show, revoke];
export const AUDIT_COMMANDS: readonly CommandSpec[] = [auditList];
