import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * How the subscriber answers: 2xx, a failure status, a redirect, never (a timeout), or a 200 whose
 * body never ends (one byte every `everyMs`: each phase is quick, the whole answer is endless).
 */
export type SubscriberMode =
  | { readonly kind: 'ok'; readonly delayMs?: number }
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Record<string, string> }
  | { readonly kind: 'hang' }
  | { readonly kind: 'trickle'; readonly everyMs: number };

export interface ReceivedDelivery {
  readonly webhookId: string;
  readonly body: string;
  readonly receivedAt: number;
  readonly validSignature: boolean;
}

/**
 * How signatures are checked. Both are independent of our signing code. `reference` is the
 * `standardwebhooks` package (19-24 µs a verification here). `hmac` follows the same spec with
 * node:crypto; the demo and the pipeline benchmark (millions of requests on a shared machine) use it.
 */
export type SignatureVerifier = 'reference' | 'hmac';

/** Standard Webhooks' default tolerance for `webhook-timestamp`, either way. */
const TIMESTAMP_TOLERANCE_S = 5 * 60;

/**
 * A real HTTP subscriber on loopback for tests: records every request, verifies its signature (the
 * reference `standardwebhooks` verifier unless told otherwise), and answers as told.
 */
export class LoopbackSubscriber {
  /** Every request, in order (empty when started with `keepRequests: false`). */
  readonly received: ReceivedDelivery[] = [];
  /**
   * Event ids answered 2xx, in order, each once (empty when started with `keepRequests: false`): the
   * webhook-id of a single-event request, the `data[].id`s of a `webhook.batch` one.
   */
  readonly accepted: string[] = [];
  private readonly acceptedIds = new Set<string>();
  /** When an event id was last answered 2xx for the first time (epoch ms): a relay's end, not the next poll's. */
  lastAcceptedAt?: number;
  /** Requests received, and how many of them failed signature verification (counted in both modes). */
  requests = 0;
  private invalid = 0;
  connections = 0;
  mode: SubscriberMode = { kind: 'ok' };
  secret?: string;
  private readonly hanging = new Set<() => void>();

  // A KeyObject: Node 24.21's createHmac is 4-5x slower given a Buffer key (see webhookSecretKey).
  private hmacKey?: { readonly secret: string; readonly key: KeyObject };

  private constructor(
    private readonly server: Server,
    private readonly keepRequests: boolean,
    private readonly verifier: SignatureVerifier,
  ) {}

  /**
   * `keepRequests: false` keeps only counts and the set of accepted webhook-ids, for runs with
   * millions of deliveries (the demo and the pipeline benchmark); every signature is still verified.
   */
  static async start(
    options: { keepRequests?: boolean; verifier?: SignatureVerifier } = {},
  ): Promise<LoopbackSubscriber> {
    const server = createServer({ keepAliveTimeout: 30_000 });
    const subscriber = new LoopbackSubscriber(
      server,
      options.keepRequests ?? true,
      options.verifier ?? 'reference',
    );
    server.on('connection', () => subscriber.connections++);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const webhookId = header(req.headers, 'webhook-id');
        const validSignature = subscriber.verify(body, req.headers);
        subscriber.requests++;
        if (!validSignature) subscriber.invalid++;
        if (subscriber.keepRequests)
          subscriber.received.push({ webhookId, body, receivedAt: Date.now(), validSignature });
        const mode = subscriber.mode;
        if (mode.kind === 'hang') {
          const release = (): void => {
            res.destroy();
          };
          subscriber.hanging.add(release);
          res.on('close', () => subscriber.hanging.delete(release));
          return;
        }
        if (mode.kind === 'trickle') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const timer = setInterval(() => res.write('.'), mode.everyMs);
          const release = (): void => {
            clearInterval(timer);
            res.destroy();
          };
          subscriber.hanging.add(release);
          res.on('close', () => {
            clearInterval(timer);
            subscriber.hanging.delete(release);
          });
          return;
        }
        if (mode.kind === 'status') {
          res.writeHead(mode.status, mode.headers).end();
          return;
        }
        const accept = (): void => {
          for (const eventId of webhookId.startsWith('batch_') ? batchEventIds(body) : [webhookId]) {
            if (subscriber.acceptedIds.has(eventId)) continue;
            subscriber.acceptedIds.add(eventId);
            subscriber.lastAcceptedAt = Date.now();
            if (subscriber.keepRequests) subscriber.accepted.push(eventId);
          }
          res.writeHead(204).end();
        };
        if (mode.delayMs === undefined) accept();
        else setTimeout(accept, mode.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return subscriber;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  invalidSignatures(): number {
    return this.invalid;
  }

  /** Distinct event ids answered 2xx. */
  get acceptedCount(): number {
    return this.acceptedIds.size;
  }

  hasAccepted(webhookId: string): boolean {
    return this.acceptedIds.has(webhookId);
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private verify(body: string, headers: IncomingHttpHeaders): boolean {
    if (this.secret === undefined) return false;
    if (this.verifier === 'hmac') return this.verifyHmac(this.secret, body, headers);
    try {
      new Webhook(this.secret).verify(body, {
        'webhook-id': header(headers, 'webhook-id'),
        'webhook-timestamp': header(headers, 'webhook-timestamp'),
        'webhook-signature': header(headers, 'webhook-signature'),
      });
      return true;
    } catch {
      return false;
    }
  }

  /** Standard Webhooks by hand: HMAC-SHA256 of `id.timestamp.body`, any `v1,` entry matching. */
  private verifyHmac(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
    if (this.hmacKey?.secret !== secret) {
      this.hmacKey = { secret, key: createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64')) };
    }
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const seconds = Number(timestamp);
    if (id === '' || !/^\d+$/.test(timestamp)) return false;
    if (Math.abs(Date.now() / 1000 - seconds) > TIMESTAMP_TOLERANCE_S) return false;
    const expected = createHmac('sha256', this.hmacKey.key).update(`${id}.${timestamp}.${body}`).digest();
    return header(headers, 'webhook-signature')
      .split(' ')
      .some((entry) => {
        if (!entry.startsWith('v1,')) return false;
        const given = Buffer.from(entry.slice(3), 'base64');
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
  }
}

/** The event ids of a `webhook.batch` body; none when it is not one (the request is then malformed). */
export function batchEventIds(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return [];
    const { type, data } = parsed as { type?: unknown; data?: unknown };
    if (type !== 'webhook.batch' || !Array.isArray(data)) return [];
    return data.flatMap((item: unknown) => {
      const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
      return typeof id === 'string' ? [id] : [];
    });
  } catch {
    return [];
  }
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}
