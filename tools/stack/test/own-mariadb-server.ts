import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectTestDatabase,
  freePort,
  ManagedProcess,
  type TestMysqlSettings,
  testLogDir,
  waitUntil,
} from '@ums/testing';

/**
 * A MariaDB server of the test's own (mariadb-install-db and mariadbd from the machine's packages)
 * on a free loopback port, with its data in a temporary directory: the test stops and starts it
 * again (a restart, a failover) without touching the machine's server. root has no password. The
 * test must call destroy() at the end, which stops it and removes its data.
 */
export class OwnMariadbServer {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly process: ManagedProcess,
  ) {}

  static async start(): Promise<OwnMariadbServer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'ums-own-mariadb-'));
    const user = process.getuid?.() === 0 ? 'root' : (process.env['USER'] ?? 'root');
    const install = spawnSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        `--user=${user}`,
      ],
      { encoding: 'utf8' },
    );
    if (install.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`mariadb-install-db failed (${String(install.status)}): ${install.stderr}`);
    }
    const proc = new ManagedProcess({
      name: `mariadbd-${port}`,
      command: 'mariadbd',
      args: [
        '--no-defaults',
        `--datadir=${join(dir, 'data')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(dir, 'mysqld.sock')}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        `--user=${user}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=64M',
        '--max-connections=500',
      ],
      logFile: join(testLogDir(), `mariadbd-${port}.log`),
    });
    const server = new OwnMariadbServer(port, dir, proc);
    await server.resume();
    return server;
  }

  /** Settings for `database` on this server (poolSize for the pools made from them). */
  settings(database: string): TestMysqlSettings {
    return { host: '127.0.0.1', port: this.port, user: 'root', password: '', database, poolSize: 5 };
  }

  /** Creates `database` (utf8mb4, as the shared test server's). */
  async createDatabase(database: string): Promise<void> {
    if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`bad database name ${database}`);
    const connection = await connectTestDatabase({ ...this.settings(database), database: '' });
    try {
      await connection.query(
        `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
    } finally {
      await connection.end();
    }
  }

  /** Starts it (again, on the same port and data) and waits until it accepts connections. */
  async resume(): Promise<void> {
    this.process.start();
    await waitUntil(`mariadbd on ${this.port}`, () => accepts(this.port), {
      timeoutMs: 60_000,
      intervalMs: 100,
      abortIf: this.process.exitedUnexpectedly,
    });
  }

  /** A clean shutdown (SIGTERM), as a restart or a failover begins: every connection is closed. */
  async pause(): Promise<void> {
    const code = await this.process.stop(30_000);
    if (code !== 0) throw new Error(`mariadbd on ${this.port} stopped with ${String(code)}`);
  }

  get running(): boolean {
    return this.process.running;
  }

  async destroy(): Promise<void> {
    await this.process.stop(30_000);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
