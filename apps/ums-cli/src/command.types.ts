import type { CampaignApiClient, DispatcherApiClient } from '@ums/client';
import { type CommandInput, OPTION_CATALOG, type OptionName, type OptionSpec } from './cli-args.parser';
import type { ProgressReporter } from './progress.reporter';

/** What a command gets: its input, the two APIs, and output that honours --json. */
export interface CommandContext {
  readonly input: CommandInput;
  readonly json: boolean;
  /** The campaign API (campaign-scheduler): the typed client of its OpenAPI document. */
  api(): CampaignApiClient;
  /** The subscriber API (webhook-dispatcher). */
  dispatcher(): DispatcherApiClient;
  /** The command's result: as JSON with --json, else the human text. */
  result(data: unknown, human: () => string): void;
  /** A note for people (stderr, never with --json), e.g. what happens next. */
  note(text: string): void;
  /** A progress line on stderr: redrawn on a terminal, throttled lines in logs, nothing with --json. */
  progress(): ProgressReporter;
  sleep(ms: number): Promise<void>;
}

export interface CommandSpec {
  readonly group: string;
  readonly name: string;
  /** Positional arguments, in order, e.g. ['CAMPAIGN_ID', 'RUN_ID']; a trailing '?' marks optional ones. */
  readonly args: readonly string[];
  readonly options: readonly OptionName[];
  readonly required?: readonly OptionName[];
  readonly summary: string;
  run(context: CommandContext): Promise<void>;
}

function optionUsage(name: OptionName): string {
  const spec: OptionSpec = OPTION_CATALOG[name];
  return spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? 'VALUE'}`;
}

/** `ums campaigns show CAMPAIGN_ID [--watch] [--interval MS]`. */
export function usageOf(spec: CommandSpec): string {
  const args = spec.args.map((a) => (a.endsWith('?') ? `[${a.slice(0, -1)}]` : a));
  const required = new Set(spec.required ?? []);
  const options = [
    ...spec.options.filter((o) => required.has(o)).map(optionUsage),
    ...spec.options.filter((o) => !required.has(o)).map((o) => `[${optionUsage(o)}]`),
  ];
  return ['ums', spec.group, spec.name, ...args, ...options].join(' ');
}
