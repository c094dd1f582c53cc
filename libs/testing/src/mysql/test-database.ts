import { randomBytes } from 'node:crypto';
import {
  grantStatements,
  MYSQL_SERVICE_USERS,
  mysqlAccount,
  type MysqlServiceUser,
  quoteSqlString,
  revokeStatements,
} from '@ums/contracts';
import { createConnection } from 'mysql2/promise';
/** Same shape as the platform's MysqlConnectionSettings (testing depends on no lib of ours but contracts). */
export interface TestMysqlSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize: number;
  /** TLS, as the platform's MysqlTlsSettings (PEM texts). */
  tls?: {
    readonly mode: 'REQUIRED' | 'VERIFY_CA' | 'VERIFY_IDENTITY';
    readonly ca?: string;
    readonly cert?: string;
    readonly key?: string;
  };
}

/** The password of each service account on test servers: public, never use it outside tests. */
export function testMysqlPassword(user: MysqlServiceUser): string {
  return `TEST-ONLY-${user}-not-a-secret`;
}

/** Settings for one service account (or the migrator) on the server of `admin`. */
export function testMysqlUserSettings(admin: TestMysqlSettings, user: MysqlServiceUser): TestMysqlSettings {
  return { ...admin, user, password: testMysqlPassword(user) };
}

/** A login (name and password) for each of the platform's MySQL accounts. */
export type MysqlAccounts = Readonly<
  Record<MysqlServiceUser, { readonly user: string; readonly password: string }>
>;

/** The accounts createTestDatabase makes: the standard names with their public test passwords. */
export function testMysqlAccounts(): MysqlAccounts {
  return Object.fromEntries(
    MYSQL_SERVICE_USERS.map((user) => [user, { user, password: testMysqlPassword(user) }]),
  ) as Record<MysqlServiceUser, { user: string; password: string }>;
}

type Connection = Awaited<ReturnType<typeof createConnection>>;

/**
 * Creates the platform's accounts on a server (when missing; the password is set either way) and
 * gives them their grants on `database` (libs/contracts service-grants.ts, the production ones).
 * The test passwords unless `passwords` says otherwise.
 */
export async function grantTestMysqlUsers(
  admin: TestMysqlSettings,
  database: string,
  options: { connection?: Connection; passwords?: Partial<Record<MysqlServiceUser, string>> } = {},
): Promise<void> {
  const statements = [
    ...MYSQL_SERVICE_USERS.flatMap((user) => {
      const password = options.passwords?.[user] ?? testMysqlPassword(user);
      const identified = `${mysqlAccount(user, {})} IDENTIFIED BY ${quoteSqlString(password)}`;
      return [`CREATE USER IF NOT EXISTS ${identified}`, `ALTER USER ${identified}`];
    }),
    ...grantStatements({ database }),
  ];
  const run = async (c: Connection): Promise<void> => {
    for (const statement of statements) await c.query(statement);
  };
  if (options.connection !== undefined) await run(options.connection);
  else await withServerConnection(admin, run);
}

/**
 * For a local stack (the demo): makes the schema when missing and the platform's accounts, as `admin`
 * (an account that may create users), and returns their logins. The passwords are the tests' public
 * ones: the demo and the tests share the machine's server and its accounts, and a password one of
 * them set would lock the other's running services out.
 */
export async function provisionMysqlAccounts(
  admin: TestMysqlSettings,
  database: string,
): Promise<MysqlAccounts> {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(database))
    throw new Error(`database must be letters, digits or _: ${database}`);
  await withServerConnection(admin, async (connection) => {
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await grantTestMysqlUsers(admin, database, { connection });
  });
  return testMysqlAccounts();
}

/** Revokes what grantTestMysqlUsers gave on `database`: grants outlive the schema they are on. */
async function revokeTestMysqlGrants(connection: Connection, database: string): Promise<void> {
  for (const statement of revokeStatements({ database })) {
    try {
      await connection.query(statement);
    } catch (error: unknown) {
      // Never granted (a create that failed half way) or already revoked: nothing to undo.
      if ((error as { code?: unknown }).code !== 'ER_NONEXISTING_GRANT') throw error;
    }
  }
}

// MySQL caps database names at 64 characters; the suffix takes 13 of them.
const MAX_PREFIX_LENGTH = 50;

/** Settings for the shared test server; only `database` varies between suites. */
export function testMysqlSettings(database: string): TestMysqlSettings {
  return {
    host: process.env['MYSQL_HOST'] ?? '127.0.0.1',
    port: parsePort(process.env['MYSQL_PORT']),
    user: process.env['MYSQL_USER'] ?? 'root',
    password: process.env['MYSQL_PASSWORD'] ?? '',
    database,
    poolSize: 5,
  };
}

/** One connection to the suite's database (`poolSize` is a pool setting, not a connection option). */
export function connectTestDatabase(settings: TestMysqlSettings): ReturnType<typeof createConnection> {
  const { poolSize: _poolSize, tls, ...connection } = settings;
  return createConnection({ ...connection, ...testSslOption(tls), charset: 'utf8mb4_unicode_ci' });
}

/** mysql2's `ssl` option for test settings (as the platform's mysql2SslOptions). */
export function testSslOption(tls: TestMysqlSettings['tls']): { ssl?: Record<string, unknown> } {
  if (tls === undefined) return {};
  return {
    ssl: {
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls.cert === undefined ? {} : { cert: tls.cert, key: tls.key }),
      rejectUnauthorized: tls.mode !== 'REQUIRED',
      verifyIdentity: tls.mode === 'VERIFY_IDENTITY',
    },
  };
}

/**
 * Creates an empty, uniquely named database so suites running in parallel never share
 * tables, with the platform's accounts granted on it; drop() removes it and may be called more
 * than once. `settings` are the migrator's (ums_migrator: DDL and DML on this schema only), so
 * migrations run as in production; `admin` are the server's administrator's (MYSQL_USER, root by default).
 */
export async function createTestDatabase(
  prefix: string,
): Promise<{ settings: TestMysqlSettings; admin: TestMysqlSettings; drop(): Promise<void> }> {
  if (!/^[a-z0-9_]+$/.test(prefix) || prefix.length > MAX_PREFIX_LENGTH) {
    throw new Error(`Test database prefix must match [a-z0-9_]{1,${MAX_PREFIX_LENGTH}}, got '${prefix}'`);
  }
  const admin = testMysqlSettings(`${prefix}_${randomBytes(6).toString('hex')}`);
  // The name is validated above, so interpolating it into DDL is safe.
  await withServerConnection(admin, async (connection) => {
    await connection.query(
      `CREATE DATABASE \`${admin.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await grantTestMysqlUsers(admin, admin.database, { connection });
  });
  return {
    settings: testMysqlUserSettings(admin, 'ums_migrator'),
    admin,
    drop: () =>
      withServerConnection(admin, async (connection) => {
        await revokeTestMysqlGrants(connection, admin.database);
        await connection.query(`DROP DATABASE IF EXISTS \`${admin.database}\``);
      }),
  };
}

export async function withServerConnection(
  settings: TestMysqlSettings,
  work: (connection: Awaited<ReturnType<typeof createConnection>>) => Promise<unknown>,
): Promise<void> {
  // No database selected: it may not exist yet, or be about to be dropped.
  const connection = await createConnection({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    ...testSslOption(settings.tls),
    charset: 'utf8mb4_unicode_ci',
  });
  try {
    await work(connection);
  } finally {
    await connection.end();
  }
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3306;
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`MYSQL_PORT must be a TCP port, got '${raw}'`);
  }
  return port;
}
