import { CampaignApiClient, type ClientOptions, DispatcherApiClient } from '@ums/client';
import type { AuthErrorCode, HttpErrorCode } from '@ums/contracts';
import {
  type CallerCredential,
  checkedCaller,
  cliErrorOf,
  type FetchLike,
  normalizeBaseUrl,
} from './api.client';
import { CommandInput, parseCommandLine, parseInteger } from './cli-args.parser';
import { ApiError, CliError, CliErrorCode, ExitCode, UnreachableError, UsageError } from './cli.errors';
import { commandsOf, GROUP_SUMMARIES } from './command.registry';
import { type CommandContext, usageOf } from './command.types';
import { commandHelp, findCommand, groupHelp, overallHelp } from './help.formatter';
import { errorJson, formatApiError } from './output.formatter';
import { type OutputStream, ProgressReporter, progressMode } from './progress.reporter';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';
export const DEFAULT_DISPATCHER_URL = 'http://127.0.0.1:3004';
const DEFAULT_TIMEOUT_MS = 30_000;

/** Everything the CLI touches outside itself, passed in by the entry file (and by tests). */
export interface CliEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly fetch: FetchLike;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Runs one command line and answers its exit code; expected errors are printed, never thrown. */
export async function runCli(argv: readonly string[], environment: CliEnvironment): Promise<ExitCode> {
  let json = argv.includes('--json');
  try {
    const line = parseCommandLine(argv);
    json = line.values.json === true;
    const [group, name, ...args] = line.positionals;
    if (group === undefined || group === 'help') {
      const text = helpFor(group === 'help' ? name : undefined, group === 'help' ? args[0] : undefined);
      environment.stdout.write(text);
      return ExitCode.Ok;
    }
    if (GROUP_SUMMARIES[group] === undefined) {
      throw new UsageError(`unknown command "${group}"; groups: ${Object.keys(GROUP_SUMMARIES).join(', ')}`);
    }
    if (name === undefined) {
      if (line.values.help === true) {
        environment.stdout.write(helpFor(group, undefined));
        return ExitCode.Ok;
      }
      throw new UsageError(
        `"${group}" needs a command: ${commandsOf(group)
          .map((c) => c.name)
          .join(', ')}`,
      );
    }
    const spec = findCommand(group, name);
    if (spec === undefined) {
      throw new UsageError(
        `unknown command "${group} ${name}"; ${group} has: ${commandsOf(group)
          .map((c) => c.name)
          .join(', ')}`,
      );
    }
    if (line.values.help === true) {
      environment.stdout.write(commandHelp(spec));
      return ExitCode.Ok;
    }
    const usage = usageOf(spec);
    const input = CommandInput.accept(line, args, spec.options, usage);
    for (const option of spec.required ?? []) input.required(option);
    await spec.run(makeContext(input, json, environment));
    return ExitCode.Ok;
  } catch (error: unknown) {
    return report(cliErrorOf(error), json, environment.stderr);
  }
}

function helpFor(group: string | undefined, name: string | undefined): string {
  if (group === undefined) return overallHelp();
  if (name !== undefined) {
    const spec = findCommand(group, name);
    if (spec === undefined) throw new UsageError(`unknown command "${group} ${name}"`);
    return commandHelp(spec);
  }
  const text = groupHelp(group);
  if (text === undefined) throw new UsageError(`unknown command "${group}"`);
  return text;
}

function makeContext(input: CommandInput, json: boolean, environment: CliEnvironment): CommandContext {
  const timeoutText = input.string('timeout');
  const timeoutMs =
    timeoutText === undefined
      ? DEFAULT_TIMEOUT_MS
      : parseInteger(timeoutText, '--timeout', { min: 1, max: 86_400_000 }, input.usage);
  // Checked before anything is sent; the same key and tenant go to both services.
  const caller = checkedCaller(callerOf(input, environment.env));
  const client = <C>(
    flag: 'api' | 'dispatcher',
    envName: string,
    fallback: string,
    make: (options: ClientOptions) => C,
  ): (() => C) => {
    let cached: C | undefined;
    return (): C => {
      if (cached !== undefined) return cached;
      const raw = input.string(flag) ?? (environment.env[envName] || undefined) ?? fallback;
      const label = input.string(flag) === undefined && environment.env[envName] ? envName : `--${flag}`;
      const baseUrl = normalizeBaseUrl(raw, label);
      cached = make({ baseUrl, fetch: environment.fetch, timeoutMs, ...caller });
      return cached;
    };
  };
  return {
    input,
    json,
    api: client('api', 'UMS_API_URL', DEFAULT_API_URL, (options) => new CampaignApiClient(options)),
    dispatcher: client(
      'dispatcher',
      'UMS_DISPATCHER_URL',
      DEFAULT_DISPATCHER_URL,
      (options) => new DispatcherApiClient(options),
    ),
    result(data, human) {
      environment.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : human());
    },
    note(text) {
      if (!json) environment.stderr.write(`${text}\n`);
    },
    progress: () => new ProgressReporter(environment.stderr, progressMode(environment.stderr, json)),
    sleep: environment.sleep,
  };
}

/** The API key and tenant of this command line: flags win over UMS_API_KEY and UMS_TENANT. */
function callerOf(input: CommandInput, env: CliEnvironment['env']): CallerCredential {
  const flagKey = input.string('api-key');
  const flagTenant = input.string('tenant');
  return {
    apiKey: flagKey ?? (env['UMS_API_KEY'] || undefined),
    apiKeySource: flagKey === undefined ? 'UMS_API_KEY' : '--api-key',
    tenant: flagTenant ?? (env['UMS_TENANT'] || undefined),
    tenantSource: flagTenant === undefined ? 'UMS_TENANT' : '--tenant',
  };
}

/** API codes with a hint, checked against the catalogue when compiled (the CLI loads no contracts at run time). */
const AUTH_MISSING: `${AuthErrorCode.Missing}` = 'AUTH_MISSING';
const TENANT_HEADER_FORBIDDEN: `${AuthErrorCode.TenantHeaderForbidden}` = 'AUTH_TENANT_HEADER_FORBIDDEN';
const TENANT_REQUIRED: `${HttpErrorCode.TenantRequired}` = 'TENANT_REQUIRED';

/** What to do about a refused credential (401/403), for people; '' for other errors. */
function accessHint(error: ApiError): string {
  if (error.code === AUTH_MISSING) return 'give an API key with UMS_API_KEY (or --api-key)\n';
  if (error.code === TENANT_HEADER_FORBIDDEN) {
    return '--tenant (UMS_TENANT) is for the operator key: a tenant key acts for its own tenant only\n';
  }
  if (error.code === TENANT_REQUIRED)
    return 'the operator key acts for the tenant named with --tenant (UMS_TENANT)\n';
  return '';
}

/** Prints an error the way the mode asks for and answers its exit code. */
function report(error: unknown, json: boolean, stderr: OutputStream): ExitCode {
  if (error instanceof ApiError) {
    stderr.write(
      json
        ? errorJson(error.code, error.message, {
            status: error.status,
            ...(error.fields.length > 0 ? { fields: error.fields } : {}),
          })
        : formatApiError(error) + accessHint(error),
    );
    return error.exitCode;
  }
  if (error instanceof UsageError) {
    if (json) stderr.write(errorJson(error.code, error.message));
    else {
      const usage = error.usage === undefined ? '' : `usage: ${error.usage}\n`;
      stderr.write(`error: ${error.message}\n${usage}run "ums help" for the commands\n`);
    }
    return error.exitCode;
  }
  if (error instanceof UnreachableError) {
    stderr.write(
      json
        ? errorJson(error.code, error.message)
        : `error: ${error.message}\nis the service running? point the CLI at it with --api/--dispatcher or UMS_API_URL/UMS_DISPATCHER_URL\n`,
    );
    return error.exitCode;
  }
  if (error instanceof CliError) {
    stderr.write(json ? errorJson(error.code, error.message) : `error: ${error.message}\n`);
    return error.exitCode;
  }
  // Not an expected error: a bug in the CLI. Show everything.
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(
    json ? errorJson(CliErrorCode.Internal, String(error)) : `internal error (a bug in the CLI): ${text}\n`,
  );
  return ExitCode.Remote;
}
