import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
/** Same shape as the platform's MysqlConnectionSettings (testing depends on no lib of ours but contracts). */
export interface TestMysqlSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize: number;
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
  const { poolSize: _poolSize, ...connection } = settings;
  return createConnection({ ...connection, charset: 'utf8mb4_unicode_ci' });
}

/**
 * Creates an empty, uniquely named database so suites running in parallel never share
 * tables; drop() removes it and may be called more than once.
 */
export async function createTestDatabase(
  prefix: string,
): Promise<{ settings: TestMysqlSettings; drop(): Promise<void> }> {
  if (!/^[a-z0-9_]+$/.test(prefix) || prefix.length > MAX_PREFIX_LENGTH) {
    throw new Error(`Test database prefix must match [a-z0-9_]{1,${MAX_PREFIX_LENGTH}}, got '${prefix}'`);
  }
  const settings = testMysqlSettings(`${prefix}_${randomBytes(6).toString('hex')}`);
  // The name is validated above, so interpolating it into DDL is safe.
  await withServerConnection(settings, (connection) =>
    connection.query(
      `CREATE DATABASE \`${settings.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    ),
  );
  return {
    settings,
    drop: () =>
      withServerConnection(settings, (connection) =>
        connection.query(`DROP DATABASE IF EXISTS \`${settings.database}\``),
      ),
  };
}

async function withServerConnection(
  settings: TestMysqlSettings,
  work: (connection: Awaited<ReturnType<typeof createConnection>>) => Promise<unknown>,
): Promise<void> {
  // No database selected: it may not exist yet, or be about to be dropped.
  const connection = await createConnection({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
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
