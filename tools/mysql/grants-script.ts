import {
  grantStatements,
  isMysqlServiceUser,
  MYSQL_SERVICE_GRANTS,
  MYSQL_SERVICE_USERS,
  mysqlAccount,
  type MysqlServiceUser,
} from '@ums/contracts';

export interface GrantsArgs {
  readonly command: 'print' | 'apply';
  /** The schema (print; apply takes MYSQL_DATABASE). */
  readonly database: string;
  /** The accounts' host part. */
  readonly host: string;
  /** Account names that differ from the standard ones: `--name ums_sender=prod_sender`. */
  readonly names: Partial<Record<MysqlServiceUser, string>>;
}

/** The SQL a DBA runs: how to create each account, then its grants. */
export function grantsScript(args: Omit<GrantsArgs, 'command'>): string[] {
  return [
    `-- The platform's MySQL accounts and their grants on \`${args.database}\`.`,
    '-- Create each account first, with a password of its own, e.g.:',
    ...MYSQL_SERVICE_USERS.map(
      (user) =>
        `--   CREATE USER ${mysqlAccount(user, args)} IDENTIFIED BY '...';  -- ${MYSQL_SERVICE_GRANTS[user].service}`,
    ),
    ...grantStatements(args).map((statement) => `${statement};`),
  ];
}

export function parseGrantsArgs(argv: readonly string[]): GrantsArgs {
  const [command, ...rest] = argv;
  if (command !== 'print' && command !== 'apply') throw new Error('usage: db-grants print|apply [options]');
  let database = 'ums';
  let host = '%';
  const names: Partial<Record<MysqlServiceUser, string>> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (value === undefined) throw new Error(`${flag ?? 'option'} needs a value`);
    if (flag === '--database') database = value;
    else if (flag === '--host') host = value;
    else if (flag === '--name') {
      const [user, name] = value.split('=', 2);
      if (user === undefined || name === undefined || name === '' || !isMysqlServiceUser(user)) {
        throw new Error(
          `--name must be <account>=<name>, the account one of ${MYSQL_SERVICE_USERS.join(', ')}`,
        );
      }
      names[user] = name;
    } else throw new Error(`unknown option ${flag ?? ''}`);
  }
  return { command, database, host, names };
}
