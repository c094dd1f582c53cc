/** The jobs a deployment runs before the services, and their arguments. */
export const ADMIN_USAGE =
  'usage: ums-admin migrate [up|down|reset|status] | create-topics [--replication N] [--report-only]';

export type AdminCommand =
  | { readonly kind: 'migrate'; readonly action: MigrateAction }
  | { readonly kind: 'create-topics'; readonly replication: number; readonly reportOnly: boolean };

/** `up` (the default) applies the pending migrations, `down` reverts the last one, `reset` all of them. */
export type MigrateAction = 'up' | 'down' | 'reset' | 'status';

const MIGRATE_ACTIONS: readonly MigrateAction[] = ['up', 'down', 'reset', 'status'];

export type AdminCommandLine =
  | { readonly ok: true; readonly command: AdminCommand }
  | { readonly ok: false; readonly help: boolean; readonly message: string };

const refused = (message: string): AdminCommandLine => ({ ok: false, help: false, message });

function migrateCommand(args: readonly string[]): AdminCommandLine {
  const [action = 'up', ...rest] = args;
  const known = MIGRATE_ACTIONS.find((a) => a === action);
  if (known === undefined)
    return refused(`unknown migrate command "${action}": use up, down, reset or status`);
  if (rest.length > 0) return refused(`migrate ${action} takes no more arguments (got ${rest.join(' ')})`);
  return { ok: true, command: { kind: 'migrate', action: known } };
}

function createTopicsCommand(args: readonly string[]): AdminCommandLine {
  let replication = 1;
  let reportOnly = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--report-only') reportOnly = true;
    else if (arg === '--replication') {
      replication = Number(args[++i]);
      if (!Number.isInteger(replication) || replication < 1)
        return refused('--replication must be a positive integer');
    } else return refused(`create-topics: unknown argument "${arg}"`);
  }
  return { ok: true, command: { kind: 'create-topics', replication, reportOnly } };
}

/** The command of `ums-admin <command> [arguments]`; no command or `--help` asks for the usage. */
export function parseAdminCommandLine(argv: readonly string[]): AdminCommandLine {
  const [name, ...args] = argv;
  switch (name) {
    case 'migrate':
      return migrateCommand(args);
    case 'create-topics':
      return createTopicsCommand(args);
    case undefined:
    case 'help':
    case '--help':
      return { ok: false, help: true, message: ADMIN_USAGE };
    default:
      return refused(`unknown command "${name}"`);
  }
}
