import { parseArgs } from 'node:util';
import { UsageError } from './cli.errors';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  /** The value's placeholder in help, e.g. FILE. */
  readonly value?: string;
  readonly description: string;
}

/** Options every command accepts. */
export const GLOBAL_OPTIONS = ['api', 'dispatcher', 'api-key', 'tenant', 'json', 'help', 'timeout'] as const;

/** Every option the CLI knows; each command names the ones it accepts. */
export const OPTION_CATALOG = {
  api: {
    type: 'string',
    value: 'URL',
    description: 'campaign API (env UMS_API_URL, default http://127.0.0.1:3000)',
  },
  dispatcher: {
    type: 'string',
    value: 'URL',
    description: 'webhook dispatcher API (env UMS_DISPATCHER_URL, default http://127.0.0.1:3004)',
  },
  'api-key': {
    type: 'string',
    value: 'KEY',
    description: 'API key sent as a bearer token (env UMS_API_KEY, which keeps it out of the process list)',
  },
  tenant: {
    type: 'string',
    value: 'ID',
    description: 'the tenant an operator key acts for, sent as X-Ums-Tenant (env UMS_TENANT)',
  },
  json: { type: 'boolean', description: 'print machine-readable JSON only (errors as JSON on stderr)' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
  timeout: {
    type: 'string',
    value: 'MS',
    description: 'give up on a request after MS milliseconds (default 30000; uploads are not limited)',
  },
  name: { type: 'string', value: 'TEXT', description: 'display name' },
  channel: { type: 'string', value: 'CHANNEL', description: 'whatsapp, sms or email' },
  credential: { type: 'string', value: 'ID', description: 'provider credential id (cred_...)' },
  csv: { type: 'string', value: 'FILE', description: 'audience CSV file to upload' },
  text: { type: 'string', value: 'TEXT', description: 'message text with {{variables}} from CSV columns' },
  subject: { type: 'string', value: 'TEXT', description: 'e-mail subject' },
  'template-name': { type: 'string', value: 'NAME', description: 'provider (WhatsApp) template name' },
  'template-language': { type: 'string', value: 'CODE', description: 'provider template language' },
  'template-param': {
    type: 'string',
    multiple: true,
    value: 'TEXT',
    description: 'provider template parameter (repeat in order)',
  },
  country: {
    type: 'string',
    value: 'CC',
    description: 'default country for national phone numbers (ISO 3166-1 alpha-2)',
  },
  at: { type: 'string', value: 'TIME', description: 'schedule once at an ISO 8601 time' },
  cron: { type: 'string', value: 'EXPR', description: "schedule by cron (five fields, e.g. '0 9 * * 1-5')" },
  tz: { type: 'string', value: 'ZONE', description: 'IANA time zone of --cron (default UTC)' },
  priority: {
    type: 'string',
    value: 'N',
    description: "1-10 (default 1): the campaign's weight in its credential's fair share, and due-run order",
  },
  start: { type: 'boolean', description: 'start the campaign after the upload' },
  to: {
    type: 'string',
    multiple: true,
    value: 'ADDRESS',
    description: 'a test recipient: phone number or e-mail address (repeat, at most 10)',
  },
  var: { type: 'string', multiple: true, value: 'NAME=VALUE', description: 'a template variable (repeat)' },
  wait: { type: 'boolean', description: 'wait until every test message is sent or failed, then print' },
  watch: { type: 'boolean', description: 'redraw the latest run progress until the run ends' },
  interval: { type: 'string', value: 'MS', description: 'poll interval of --watch (default 1000)' },
  run: { type: 'string', value: 'RUN_ID', description: 'the run to show or watch (default: the latest)' },
  limit: { type: 'string', value: 'N', description: 'page size' },
  after: { type: 'string', value: 'ID', description: 'page after this id (the nextAfter of a page)' },
  before: { type: 'string', value: 'ID', description: 'page before this id (the nextBefore of a page)' },
  state: { type: 'string', value: 'STATE', description: 'filter by state (comma-separated where allowed)' },
  recipient: { type: 'string', value: 'ADDRESS', description: 'filter by recipient' },
  address: { type: 'string', value: 'ADDRESS', description: 'one address (any spelling of it)' },
  output: { type: 'string', value: 'FILE', description: 'write the download to FILE' },
  since: { type: 'string', value: 'TIME', description: 'ISO 8601 time' },
  provider: { type: 'string', value: 'NAME', description: 'whatsapp-cloud, twilio, ses, mitto or simulator' },
  config: {
    type: 'string',
    multiple: true,
    value: 'KEY=VALUE',
    description: 'non-secret provider setting (repeat)',
  },
  'secret-file': { type: 'string', value: 'FILE', description: 'read the provider secret from FILE' },
  'rate-ceiling': { type: 'string', value: 'N', description: 'messages per second at most' },
  'rate-floor': { type: 'string', value: 'N', description: 'messages per second at least' },
  'tenant-rate-cap': { type: 'string', value: 'N', description: "cap on the tenant's rate" },
  topic: {
    type: 'string',
    value: 'TOPIC',
    description: 'the topic a dead letter was consumed from (as listed, with any namespace prefix)',
  },
  'error-code': { type: 'string', value: 'CODE', description: 'filter by error code' },
  group: { type: 'string', value: 'GROUP', description: 'filter by consumer group (as listed)' },
  open: { type: 'boolean', description: 'only dead letters never replayed' },
  replayed: { type: 'boolean', description: 'only dead letters replayed at least once' },
  'include-replayed': { type: 'boolean', description: 'replay matching dead letters replayed before, too' },
  scopes: {
    type: 'string',
    value: 'SCOPE,...',
    description:
      'comma-separated scopes of the key, e.g. campaigns:read,campaigns:write (at most your own; all of them when left out)',
  },
  'expires-at': {
    type: 'string',
    value: 'TIME',
    description: 'when the key stops working (ISO 8601 with an offset); never when left out',
  },
  action: { type: 'string', value: 'ACTION', description: "one action exactly, e.g. 'POST /v1/campaigns'" },
  principal: { type: 'string', value: 'ID', description: 'one caller: a key id, operator, or a JWT subject' },
  amount: { type: 'string', value: 'N', description: 'credits to add (a positive integer)' },
  reference: {
    type: 'string',
    value: 'REF',
    description: 'idempotency key of a top-up (an invoice or payment id): repeated, it credits nothing again',
  },
  price: {
    type: 'string',
    value: 'N|none',
    description: 'credits per message (per segment on SMS); none: the channel is not metered',
  },
  daily: {
    type: 'string',
    value: 'N|none',
    description: 'messages per UTC day across channels; none: no cap',
  },
  monthly: {
    type: 'string',
    value: 'N|none',
    description: 'messages per UTC month across channels; none: no cap',
  },
  kind: { type: 'string', value: 'KIND', description: 'TOP_UP, RESERVE, REFUND or ADJUST' },
  file: { type: 'string', value: 'FILE', description: 'CSV file to upload into a contact list' },
  url: { type: 'string', value: 'URL', description: 'http(s) URL of a CSV file the service fetches' },
  where: {
    type: 'string',
    multiple: true,
    value: 'NAME=VALUE[,VALUE...]',
    description:
      'a segment attribute: members whose variable equals the value, or one of them (repeat: all must hold)',
  },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTION_CATALOG;

export type OptionValue = string | boolean | string[] | undefined;

export interface CommandLine {
  readonly positionals: readonly string[];
  readonly values: Readonly<Partial<Record<OptionName, OptionValue>>>;
}

function isOptionName(name: string): name is OptionName {
  return Object.prototype.hasOwnProperty.call(OPTION_CATALOG, name);
}

/** Splits argv into positionals and known options; unknown options and missing values are usage errors. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  try {
    const { positionals, values } = parseArgs({
      args: [...argv],
      options: OPTION_CATALOG,
      allowPositionals: true,
      strict: true,
    });
    const known: Partial<Record<OptionName, OptionValue>> = {};
    for (const [name, value] of Object.entries(values)) {
      if (isOptionName(name)) known[name] = value;
    }
    return { positionals, values: known };
  } catch (error: unknown) {
    // Duck-typed: node:util's errors come from another realm under Jest, so instanceof is unreliable.
    if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
      if (String(error.code).startsWith('ERR_PARSE_ARGS')) throw new UsageError(String(error.message));
    }
    throw error;
  }
}

/** What one command received, with typed accessors that turn bad input into usage errors. */
export class CommandInput {
  constructor(
    readonly args: readonly string[],
    private readonly values: Readonly<Partial<Record<OptionName, OptionValue>>>,
    readonly usage: string,
  ) {}

  /** Refuses options the command does not take (they would otherwise be ignored silently). */
  static accept(
    line: CommandLine,
    args: readonly string[],
    accepted: readonly OptionName[],
    usage: string,
  ): CommandInput {
    const allowed = new Set<string>([...GLOBAL_OPTIONS, ...accepted]);
    for (const name of Object.keys(line.values)) {
      if (!allowed.has(name)) throw new UsageError(`--${name} is not an option of this command`, usage);
    }
    return new CommandInput(args, line.values, usage);
  }

  arg(index: number, label: string): string {
    const value = this.args[index];
    if (value === undefined || value === '') throw new UsageError(`missing ${label}`, this.usage);
    return value;
  }

  /** Refuses positionals past the ones the command takes. */
  noMoreArgs(count: number): void {
    if (this.args.length > count) {
      throw new UsageError(`unexpected argument: ${String(this.args[count])}`, this.usage);
    }
  }

  flag(name: OptionName): boolean {
    return this.values[name] === true;
  }

  string(name: OptionName): string | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new UsageError(`--${name} needs a value`, this.usage);
    if (value.trim() === '') throw new UsageError(`--${name} must not be empty`, this.usage);
    return value;
  }

  required(name: OptionName): string {
    const value = this.string(name);
    if (value === undefined) throw new UsageError(`--${name} is required`, this.usage);
    return value;
  }

  list(name: OptionName): string[] {
    const value = this.values[name];
    if (value === undefined) return [];
    return Array.isArray(value) ? value : [String(value)];
  }

  int(name: OptionName, range: { min: number; max?: number }): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    return parseInteger(text, `--${name}`, range, this.usage);
  }
}

/** A decimal integer within a range, or a usage error naming the option. */
export function parseInteger(
  text: string,
  label: string,
  range: { min: number; max?: number },
  usage?: string,
): number {
  const value = /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(value) || value < range.min || value > max) {
    const bound = range.max === undefined ? `at least ${range.min}` : `${range.min}..${range.max}`;
    throw new UsageError(`${label} must be an integer ${bound}, got ${JSON.stringify(text)}`, usage);
  }
  return value;
}

/** `KEY=VALUE` settings as a flat record; numbers and booleans keep their type. */
export function parseSettings(
  pairs: readonly string[],
  label: string,
): Record<string, string | number | boolean> {
  const settings: Record<string, string | number | boolean> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`${label} must be KEY=VALUE, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1);
    settings[key] =
      raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  }
  return settings;
}

/** An ISO 8601 time with a date and time, or a usage error naming the option. */
export function parseIsoTime(text: string, label: string, usage?: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
  if (!iso.test(text) || Number.isNaN(Date.parse(text))) {
    throw new UsageError(
      `${label} must be an ISO 8601 time with an offset, e.g. 2026-01-31T09:00:00Z`,
      usage,
    );
  }
  return text;
}
