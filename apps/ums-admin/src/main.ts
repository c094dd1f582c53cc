import 'reflect-metadata';
import { ADMIN_USAGE, type AdminCommand, parseAdminCommandLine } from './admin-command.parser';
import { migrate } from './migrations/migrate.command';
import { createTopics } from './topics/create-topics.command';

/** Runs one command; its exit code. */
function run(command: AdminCommand): Promise<number> {
  switch (command.kind) {
    case 'migrate':
      return migrate(command.action);
    case 'create-topics':
      return createTopics(command);
  }
}

/**
 * The jobs a deployment runs before the services (the Kubernetes Jobs, docker compose, the local stack):
 * `migrate [up|down|reset|status]` and `create-topics [--replication N] [--report-only]`.
 * Exit codes: 0 done, 1 failed (`<command> failed: <reason>` on stderr), 2 usage or, for create-topics,
 * an existing topic weaker than declared.
 */
function main(): void {
  const line = parseAdminCommandLine(process.argv.slice(2));
  if (!line.ok) {
    if (line.help) process.stdout.write(`${line.message}\n`);
    else process.stderr.write(`ums-admin: ${line.message}\n${ADMIN_USAGE}\n`);
    process.exitCode = line.help ? 0 : 2;
    return;
  }
  run(line.command).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `${line.command.kind} failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

main();
