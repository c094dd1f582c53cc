/**
 * The MySQL accounts of the platform and what each may do: the one source of truth for the grants
 * that `npm run db:grants` prints or applies, that the tests give their users, and that each service
 * checks at start-up. Services get DML only (no DDL); the migrator owns the schema.
 *
 * Grants are schema-level (`db`.*), a set of privileges per account: table-level grants need their
 * tables to exist (so they could only be given after each migration) and a per-table list for the
 * services that touch most tables would go stale silently. webhook-ingest only reads, the expander
 * never deletes, and only the migrator has DDL.
 */
export const MYSQL_SERVICE_USERS = [
  'ums_scheduler',
  'ums_expander',
  'ums_sender',
  'ums_ingest',
  'ums_dispatcher',
  'ums_migrator',
] as const;
export type MysqlServiceUser = (typeof MYSQL_SERVICE_USERS)[number];

export type MysqlPrivilege =
  'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE' | 'CREATE' | 'ALTER' | 'DROP' | 'INDEX' | 'REFERENCES';

/** Privileges on the whole schema. */
export interface MysqlGrant {
  readonly privileges: readonly MysqlPrivilege[];
}

export interface MysqlAccount {
  /** The process that connects as this account (`migrate` is the schema migration job). */
  readonly service: string;
  readonly grants: readonly MysqlGrant[];
}

const DML: readonly MysqlPrivilege[] = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

export const MYSQL_SERVICE_GRANTS: Readonly<Record<MysqlServiceUser, MysqlAccount>> = {
  // API keys, audit trail, campaigns, audiences, runs, messages, opt-outs, dead letters (deletes after replay),
  // idempotency keys (deletes released and expired ones), per-second rate figures (deletes them past retention).
  ums_scheduler: { service: 'campaign-scheduler', grants: [{ privileges: DML }] },
  // Reads audiences and campaigns, writes runs and messages; never deletes.
  ums_expander: { service: 'batch-expander', grants: [{ privileges: ['SELECT', 'INSERT', 'UPDATE'] }] },
  // Claims, statuses, counters, opt-outs, per-second rate figures; deletes folded counter deltas, processed events, finished batches and
  // opt-outs lifted by an opt-in keyword.
  ums_sender: { service: 'notification-sender', grants: [{ privileges: DML }] },
  // Reads credentials to verify callbacks; writes nothing (it publishes to Kafka).
  ums_ingest: { service: 'webhook-ingest', grants: [{ privileges: ['SELECT'] }] },
  // Subscribers and deliveries (retention deletes), API keys, the audit trail and idempotency keys.
  ums_dispatcher: { service: 'webhook-dispatcher', grants: [{ privileges: DML }] },
  // DDL for the migrations (foreign keys need REFERENCES); DML for data migrations and its bookkeeping.
  ums_migrator: {
    service: 'migrate',
    grants: [{ privileges: [...DML, 'CREATE', 'ALTER', 'DROP', 'INDEX', 'REFERENCES'] }],
  },
};

/** The account of a service (by its name, e.g. `notification-sender`), if it has one. */
export function mysqlUserOfService(service: string): MysqlServiceUser | undefined {
  return MYSQL_SERVICE_USERS.find((user) => MYSQL_SERVICE_GRANTS[user].service === service);
}

export function isMysqlServiceUser(value: string): value is MysqlServiceUser {
  return (MYSQL_SERVICE_USERS as readonly string[]).includes(value);
}

export interface GrantStatementOptions {
  /** The schema the grants are on. */
  readonly database: string;
  /** The account host part (`%`, any host, by default). */
  readonly host?: string;
  /** Which accounts (all by default). */
  readonly users?: readonly MysqlServiceUser[];
  /** Actual account names where they differ from the standard ones (e.g. a prefix per environment). */
  readonly names?: Readonly<Partial<Record<MysqlServiceUser, string>>>;
}

/** `GRANT ... ON db.* TO 'user'@'host'` for each account, from MYSQL_SERVICE_GRANTS. */
export function grantStatements(options: GrantStatementOptions): string[] {
  return accountGrants(options).map(
    ({ account, grant }) => `GRANT ${grant.privileges.join(', ')} ON ${target(options)} TO ${account}`,
  );
}

/** The reverse of grantStatements (e.g. before dropping a test schema: grants outlive their schema). */
export function revokeStatements(options: GrantStatementOptions): string[] {
  return accountGrants(options).map(
    ({ account, grant }) => `REVOKE ${grant.privileges.join(', ')} ON ${target(options)} FROM ${account}`,
  );
}

/** `'name'@'host'` of one account, quoted for SQL. */
export function mysqlAccount(
  user: MysqlServiceUser,
  options: Omit<GrantStatementOptions, 'database'>,
): string {
  return `${quoteSqlString(options.names?.[user] ?? user)}@${quoteSqlString(options.host ?? '%')}`;
}

/** A MySQL string literal, quotes and backslashes escaped (for the default sql_mode, without NO_BACKSLASH_ESCAPES). */
export function quoteSqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function accountGrants(options: GrantStatementOptions): { account: string; grant: MysqlGrant }[] {
  assertIdentifier(options.database, 'database');
  return (options.users ?? MYSQL_SERVICE_USERS).flatMap((user) =>
    MYSQL_SERVICE_GRANTS[user].grants.map((grant) => ({ account: mysqlAccount(user, options), grant })),
  );
}

function target(options: GrantStatementOptions): string {
  return `\`${options.database}\`.*`;
}

function assertIdentifier(name: string, what: string): void {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(name)) throw new Error(`${what} must be letters, digits or _: ${name}`);
}
