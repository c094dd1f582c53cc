import {
  MYSQL_SERVICE_GRANTS,
  MysqlErrorCode,
  type MysqlPrivilege,
  type MysqlServiceUser,
} from '@ums/contracts';
import { MysqlStartupError } from './mysql-startup-error';

/** Runs one statement; a DataSource's or a connection's query. */
export type MysqlQuery = (sql: string, parameters: unknown[]) => Promise<unknown>;

export interface GrantCheckResult {
  /** Required privileges the connected account lacks, as `SELECT ON db.*`. */
  readonly missing: readonly string[];
  /** DDL privileges the account holds though its grants give it none (e.g. a service running as root). */
  readonly excess: readonly string[];
}

const DDL: readonly string[] = ['CREATE', 'ALTER', 'DROP', 'INDEX', 'REFERENCES', 'ALL PRIVILEGES'];

/** The current account as information_schema writes a grantee: 'user'@'host'. */
const GRANTEE = `CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')`;

/**
 * Compares the privileges the connected account holds on `database` (global and schema grants given
 * to it directly; not through roles) with what MYSQL_SERVICE_GRANTS gives `user`.
 */
export async function checkServiceGrants(
  query: MysqlQuery,
  options: { user: MysqlServiceUser; database: string },
): Promise<GrantCheckResult> {
  const rows = (await query(
    `SELECT PRIVILEGE_TYPE AS privilege FROM information_schema.USER_PRIVILEGES
      WHERE GRANTEE = ${GRANTEE}
     UNION ALL
     SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES
      WHERE GRANTEE = ${GRANTEE} AND ? LIKE TABLE_SCHEMA`,
    [options.database],
  )) as { privilege: string }[];
  const held = new Set(rows.map((r) => r.privilege));
  const required = new Set<string>(
    MYSQL_SERVICE_GRANTS[options.user].grants.flatMap((grant): readonly MysqlPrivilege[] => grant.privileges),
  );
  const missing = [...required]
    .filter((privilege) => !held.has(privilege) && !held.has('ALL PRIVILEGES'))
    .map((privilege) => `${privilege} ON ${options.database}.*`);
  const excess = [...new Set(rows.map((r) => r.privilege))].filter(
    (p) => DDL.includes(p) && !required.has(p),
  );
  return { missing, excess };
}

/** Refuses to start when the account lacks a privilege its service needs, naming each one. */
export function assertGrants(
  result: GrantCheckResult,
  account: { user: MysqlServiceUser; login: string },
): void {
  if (result.missing.length === 0) return;
  throw new MysqlStartupError(
    MysqlErrorCode.GrantMissing,
    `MYSQL_USER '${account.login}' lacks ${result.missing.join(', ')} (the grants of ${account.user}: ` +
      '`npm run -s db:grants` prints them)',
    'MYSQL_USER',
  );
}
