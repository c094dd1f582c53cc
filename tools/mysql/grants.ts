import 'reflect-metadata';
import { grantStatements } from '@ums/contracts';
import { connectMysqlServer, loadConfig, MysqlConfig, mysqlSettingsFrom, processEnv } from '@ums/platform';
import { grantsScript, parseGrantsArgs } from './grants-script';

/**
 * The MySQL grants of every service and of the migrator (libs/contracts service-grants.ts).
 * Usage: db-grants print [--database ums] [--host %] [--name ums_sender=prod_sender ...] prints them
 * as SQL for a DBA; db-grants apply [--host %] [--name ...] connects as MYSQL_USER (an account that
 * may grant: an administrator) with the MYSQL_* settings and grants them on MYSQL_DATABASE. The
 * accounts must exist: each is created by whoever keeps its password (CREATE USER ... IDENTIFIED BY).
 */
async function main(): Promise<void> {
  const args = parseGrantsArgs(process.argv.slice(2));
  if (args.command === 'print') {
    process.stdout.write(`${grantsScript(args).join('\n')}\n`);
    return;
  }
  const settings = mysqlSettingsFrom(loadConfig(MysqlConfig, processEnv()));
  const connection = await connectMysqlServer(settings);
  try {
    for (const statement of grantStatements({ ...args, database: settings.database })) {
      await connection
        .query(statement)
        .catch((error: unknown) => Promise.reject(explainGrantError(error, statement)));
      process.stdout.write(`${statement};\n`);
    }
  } finally {
    await connection.end();
  }
}

function explainGrantError(error: unknown, statement: string): Error {
  const code = (error as { code?: unknown }).code;
  const account = / TO (\S+)$/.exec(statement)?.[1] ?? 'the account';
  if (code === 'ER_PASSWORD_NO_MATCH' || code === 'ER_CANT_CREATE_USER_WITH_GRANT') {
    return new Error(
      `${account} does not exist: create it first (CREATE USER ${account} IDENTIFIED BY ...)`,
      {
        cause: error,
      },
    );
  }
  return new Error(`${statement} failed: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`db-grants failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
