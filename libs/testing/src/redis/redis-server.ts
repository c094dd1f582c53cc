import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../net/free-port';
import { ManagedProcess } from '../process/managed-process';
import { waitUntil } from '../process/wait-until';

export interface RedisServerOptions {
  /** Its log lives here. */
  readonly dir: string;
  /** TCP port on 127.0.0.1 (a free one when omitted). */
  readonly port?: number;
}

export interface RedisServerHandle {
  /** redis://127.0.0.1:<port>/0 */
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** SIGTERM without saving (nothing is persisted: it comes back empty, as a restarted cache does). */
  stop(): Promise<void>;
  /** SIGKILL: connections drop at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again after stop(), on the same port, and waits until it answers PING. */
  start(): Promise<void>;
}

/**
 * A redis-server of a test's own on a port of its own, without persistence, so that a test can
 * restart Redis without disturbing the machine's server or other suites. The caller must stop() it.
 */
export async function startRedisServer(options: RedisServerOptions): Promise<RedisServerHandle> {
  const port = options.port ?? (await freePort());
  mkdirSync(options.dir, { recursive: true });
  const server = new ManagedProcess({
    name: `redis-${port}`,
    command: 'redis-server',
    args: [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      options.dir,
    ],
    logFile: join(options.dir, 'redis.log'),
  });
  const start = async (): Promise<void> => {
    server.start();
    await waitUntil(`redis-server on ${port}`, () => pings(port), {
      timeoutMs: 30_000,
      intervalMs: 100,
      abortIf: server.exitedUnexpectedly,
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    get running() {
      return server.running;
    },
    stop: async () => {
      await server.stop(10_000);
    },
    kill: () => server.kill(),
    start,
  };
}

/** Whether a Redis on 127.0.0.1:port answers PING with PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) socket.end();
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(answer.startsWith('+PONG')));
  });
}
