import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An HTTP answer; an object body is sent as JSON. */
export interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** What the fake provider answers: a response, no answer at all, or a dropped connection. */
export type Reply = Answer | 'hang' | 'reset';

/**
 * A real HTTP server standing in for a provider in adapter tests: it records every request and
 * answers what the test's handler says (JSON bodies are serialized).
 */
export class FakeProviderServer {
  readonly received: ReceivedRequest[] = [];
  handler: (request: ReceivedRequest) => Reply | Promise<Reply> = () => ({ status: 500 });
  inFlight = 0;
  maxInFlight = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeProviderServer> {
    const server = createServer();
    const fake = new FakeProviderServer(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        fake.received.push(request);
        fake.inFlight++;
        fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
        res.on('close', () => fake.inFlight--);
        void Promise.resolve(fake.handler(request)).then((reply) => answer(res, reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.received.length = 0;
    this.maxInFlight = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function answer(res: ServerResponse, reply: Reply): void {
  if (reply === 'hang') return;
  if (reply === 'reset') {
    res.socket?.destroy();
    return;
  }
  const body =
    reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (typeof reply.body === 'object' && headers['content-type'] === undefined)
    headers['content-type'] = 'application/json';
  res.writeHead(reply.status, headers);
  res.end(body);
}

/** A port with nothing listening on it (for connection-refused tests). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
