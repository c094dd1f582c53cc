import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../net/free-port';
import { ManagedProcess } from '../process/managed-process';
import { waitUntil } from '../process/wait-until';
import {
  connectTestDatabase,
  grantTestMysqlUsers,
  testMysqlUserSettings,
  type TestMysqlSettings,
} from './test-database';

export interface MariadbServerOptions {
  /** Data, socket and error log live here; the data directory is initialised only once. */
  readonly dir: string;
  /** TCP port on 127.0.0.1 (a free one when omitted). */
  readonly port?: number;
  readonly bufferPoolMb?: number;
  readonly readyTimeoutMs?: number;
  /**
   * Serve TLS with this certificate (and key), trusting `caFile` for client certificates; with
   * `requireSecureTransport` plain connections are refused (require_secure_transport=ON).
   */
  readonly tls?: {
    readonly certFile: string;
    readonly keyFile: string;
    readonly caFile: string;
    /** The CA's PEM text: the handle's settings verify the server against it. */
    readonly ca: string;
    readonly requireSecureTransport?: boolean;
  };
}

export interface MariadbServerHandle {
  readonly host: string;
  readonly port: number;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Connection settings for one database of this server (root, no password; TLS verified when it serves TLS). */
  settings(database: string): TestMysqlSettings;
  /**
   * Creates a database (utf8mb4, named [a-z0-9_]+) with the platform's accounts granted on it, as
   * createTestDatabase does, and returns the migrator's (ums_migrator) connection settings.
   */
  createDatabase(name: string): Promise<TestMysqlSettings>;
  /** Graceful shutdown. */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed server (InnoDB recovers on the next start). */
  kill(): Promise<void>;
  /** Starts it again after stop() or kill(), on the same port and data, and waits until it answers. */
  start(): Promise<void>;
}

/**
 * A MariaDB server of a test's own (the machine's mariadbd, /usr/sbin/mariadbd), on a port of its
 * own, so that a test can stop and restart its database without disturbing the machine's server or
 * other suites. Root has an empty password over TCP. The caller must stop() it.
 */
export async function startMariadbServer(options: MariadbServerOptions): Promise<MariadbServerHandle> {
  const port = options.port ?? (await freePort());
  const data = join(options.dir, 'data');
  mkdirSync(options.dir, { recursive: true });
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  if (!existsSync(join(data, 'mysql'))) {
    execFileSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        ...asRoot,
        `--datadir=${data}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'pipe' },
    );
  }
  const server = new ManagedProcess({
    name: `mariadbd-${port}`,
    command: 'mariadbd',
    args: [
      ...mariadbdArgs({ dir: options.dir, data, port, asRoot, bufferPoolMb: options.bufferPoolMb ?? 256 }),
      ...tlsArgs(options.tls),
    ],
    logFile: join(options.dir, 'mariadbd.log'),
  });
  const host = '127.0.0.1';
  const settings = (database: string): TestMysqlSettings => ({
    host,
    port,
    user: 'root',
    password: '',
    database,
    poolSize: 5,
    ...(options.tls === undefined ? {} : { tls: { mode: 'VERIFY_IDENTITY', ca: options.tls.ca } }),
  });
  const start = async (): Promise<void> => {
    server.start();
    await waitUntil(
      `mariadbd on ${port}`,
      async () => {
        const connection = await connectTestDatabase(settings('mysql'));
        await connection.end();
        return true;
      },
      { timeoutMs: options.readyTimeoutMs ?? 60_000, intervalMs: 200, abortIf: server.exitedUnexpectedly },
    );
  };
  await start();
  return {
    host,
    port,
    get pid() {
      return server.pid;
    },
    get running() {
      return server.running;
    },
    settings,
    createDatabase: (name) => createDatabase(settings, name),
    stop: async () => {
      await server.stop(60_000);
    },
    kill: () => server.kill(),
    start,
  };
}

function tlsArgs(tls: MariadbServerOptions['tls']): string[] {
  if (tls === undefined) return [];
  return [
    `--ssl-cert=${tls.certFile}`,
    `--ssl-key=${tls.keyFile}`,
    `--ssl-ca=${tls.caFile}`,
    ...(tls.requireSecureTransport === true ? ['--require-secure-transport=ON'] : []),
  ];
}

function mariadbdArgs(parts: {
  dir: string;
  data: string;
  port: number;
  asRoot: readonly string[];
  bufferPoolMb: number;
}): string[] {
  return [
    '--no-defaults',
    ...parts.asRoot,
    `--datadir=${parts.data}`,
    `--port=${parts.port}`,
    '--bind-address=127.0.0.1',
    `--socket=${join(parts.dir, 'mysqld.sock')}`,
    `--pid-file=${join(parts.dir, 'mysqld.pid')}`,
    '--skip-name-resolve',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_general_ci',
    '--max-connections=500',
    `--innodb-buffer-pool-size=${parts.bufferPoolMb}M`,
    // A test server: a commit is flushed to the OS, not to the disk (a process crash loses nothing).
    '--innodb-flush-log-at-trx-commit=2',
    '--skip-log-bin',
  ];
}

async function createDatabase(
  settings: (database: string) => TestMysqlSettings,
  name: string,
): Promise<TestMysqlSettings> {
  if (!/^[a-z0-9_]{1,64}$/.test(name)) throw new Error(`database name must match [a-z0-9_]{1,64}: ${name}`);
  const connection = await connectTestDatabase(settings('mysql'));
  try {
    // The name is validated above, so interpolating it into DDL is safe.
    await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await grantTestMysqlUsers(settings(name), name, { connection });
  } finally {
    await connection.end();
  }
  return testMysqlUserSettings(settings(name), 'ums_migrator');
}
