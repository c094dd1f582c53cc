import { GLOBAL_OPTIONS, OPTION_CATALOG, type OptionName, type OptionSpec } from './cli-args.parser';
import { commandsOf, COMMANDS, GROUP_SUMMARIES } from './command.registry';
import { type CommandSpec, usageOf } from './command.types';

function optionLines(names: readonly OptionName[]): string[] {
  const rows = names.map((name) => {
    const spec: OptionSpec = OPTION_CATALOG[name];
    const short = spec.short === undefined ? '' : `-${spec.short}, `;
    return [
      `${short}--${name}${spec.type === 'boolean' ? '' : ` ${spec.value ?? 'VALUE'}`}`,
      spec.description,
    ];
  });
  const width = Math.max(...rows.map(([flag]) => (flag ?? '').length));
  return rows.map(([flag, text]) => `  ${(flag ?? '').padEnd(width)}  ${text ?? ''}`);
}

const FOOTER = [
  'Environment: UMS_API_URL, UMS_DISPATCHER_URL, UMS_API_KEY, UMS_TENANT (flags win).',
  'Exit codes: 0 ok, 1 the API refused (code and message printed; 401/403: the key), 2 usage error, 3 cannot connect.',
];

/** `ums help`: every group and command. */
export function overallHelp(): string {
  const lines = ['Usage: ums <group> <command> [arguments] [options]', ''];
  for (const [group, summary] of Object.entries(GROUP_SUMMARIES)) {
    lines.push(`${group}: ${summary}`);
    const commands = commandsOf(group);
    const width = Math.max(...commands.map((c) => c.name.length));
    for (const command of commands) lines.push(`  ${command.name.padEnd(width)}  ${command.summary}`);
    lines.push('');
  }
  lines.push('Options of every command:', ...optionLines(GLOBAL_OPTIONS), '');
  lines.push('Run "ums help <group> [command]" for the arguments and options of one.', ...FOOTER, '');
  return lines.join('\n');
}

export function groupHelp(group: string): string | undefined {
  const commands = commandsOf(group);
  if (commands.length === 0) return undefined;
  const lines = [
    `Usage: ums ${group} <command> [arguments] [options]`,
    '',
    `${group}: ${GROUP_SUMMARIES[group] ?? ''}`,
    '',
  ];
  for (const command of commands) lines.push(`  ${usageOf(command)}`, `      ${command.summary}`);
  lines.push('');
  return lines.join('\n');
}

export function commandHelp(command: CommandSpec): string {
  const lines = [`Usage: ${usageOf(command)}`, '', command.summary, ''];
  if (command.options.length > 0) lines.push('Options:', ...optionLines(command.options), '');
  lines.push('Options of every command:', ...optionLines(GLOBAL_OPTIONS), '', ...FOOTER, '');
  return lines.join('\n');
}

export function findCommand(group: string, name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.group === group && c.name === name);
}
