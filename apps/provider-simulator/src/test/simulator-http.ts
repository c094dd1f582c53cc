import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/** One HTTP call; JSON bodies are sent as JSON, strings as they are (form bodies). */
export async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Answer<T>> {
  const isText = typeof init.body === 'string';
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body !== undefined && !isText ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : isText ? (init.body as string) : JSON.stringify(init.body),
    signal: init.signal,
  });
  const text = await response.text();
  let body: unknown = {};
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = { raw: text };
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

export interface ReceivedCallback {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/**
 * A local HTTP server that records every callback the simulator posts, in arrival order, and
 * answers 200 (or 500 to the first `failFirst` posts of a path, to see retries).
 */
export class CallbackRecorder {
  readonly received: ReceivedCallback[] = [];
  private readonly failures = new Map<string, number>();
  private server: Server | undefined;
  url = '';

  failFirst(pathPrefix: string, times: number): void {
    this.failures.set(pathPrefix, times);
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '';
        for (const [prefix, left] of this.failures) {
          if (path.startsWith(prefix) && left > 0) {
            this.failures.set(prefix, left - 1);
            res.writeHead(500).end('try later');
            return;
          }
        }
        this.received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        res.writeHead(200).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  on(pathPrefix: string): ReceivedCallback[] {
    return this.received.filter((r) => r.path.startsWith(pathPrefix));
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
