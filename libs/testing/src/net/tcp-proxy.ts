import { createServer, type Server, type Socket, connect } from 'node:net';

export interface TcpProxyOptions {
  readonly targetHost: string;
  readonly targetPort: number;
  /** Listening port on 127.0.0.1 (a free one when omitted). */
  readonly port?: number;
}

/**
 * A TCP proxy on loopback between a service and a server (MySQL, say), that a test can cut: cut()
 * destroys every open connection and refuses new ones (accepted, then reset at once) until
 * restore(), as a network partition between that one service and the server would.
 */
export class TcpProxy {
  private readonly open = new Set<Socket>();
  private cutOff = false;
  /** Connections accepted and refused while cut. */
  refused = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(options: TcpProxyOptions): Promise<TcpProxy> {
    const accepting: { proxy?: TcpProxy } = {};
    const server = createServer((client) => accepting.proxy?.accept(client, options));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
    accepting.proxy = new TcpProxy(server, address.port);
    return accepting.proxy;
  }

  get isCut(): boolean {
    return this.cutOff;
  }

  /** Drops every connection through the proxy and refuses new ones until restore(). */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }

  restore(): void {
    this.cutOff = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, options: TcpProxyOptions): void {
    if (this.cutOff) {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: options.targetHost, port: options.targetPort });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.open.add(from);
      from.pipe(to);
      from.once('error', () => to.destroy());
      from.once('close', () => {
        this.open.delete(from);
        to.destroy();
      });
    }
  }
}
