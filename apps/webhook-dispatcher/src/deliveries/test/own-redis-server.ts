import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, ManagedProcess, testLogDir, waitUntil } from '@ums/testing';

/**
 * A redis-server of the test's own on a free loopback port, without persistence (it comes back
 * empty, as a restarted cache does), that the test stops and starts again on the same port. The
 * machine's Redis is never touched. The test must call stop() at the end.
 */
export class OwnRedisServer {
  private constructor(
    readonly port: number,
    private readonly process: ManagedProcess,
  ) {}

  static async start(): Promise<OwnRedisServer> {
    const port = await freePort();
    const proc = new ManagedProcess({
      name: `redis-${port}`,
      command: 'redis-server',
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      logFile: join(testLogDir(), `redis-server-${port}.log`),
    });
    const server = new OwnRedisServer(port, proc);
    await server.resume();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts it again (empty) and waits until it accepts connections. */
  async resume(): Promise<void> {
    this.process.start();
    await waitUntil(`redis-server on ${this.port}`, () => accepts(this.port), {
      timeoutMs: 10_000,
      abortIf: this.process.exitedUnexpectedly,
    });
  }

  /** SIGKILL: connections drop at once, as in a crash. */
  async kill(): Promise<void> {
    await this.process.kill();
  }

  async stop(): Promise<void> {
    await this.process.stop(5_000);
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
