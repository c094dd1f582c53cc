import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { HttpErrorCode } from '@ums/contracts';
import { InvalidInputError, TooLargeError, UnavailableError } from '../errors/coded-error';
import { isProbeUrl, requestLogLevel } from '../logging/request-log-level';
import { describeError } from './error-response.filter';
import type { InFlightBytes } from './in-flight-bytes';
import { type ClientOrigin, TrustedProxies } from './trusted-proxies';

/** What a fast route knows of a request before its body is read. */
export interface FastRequestHead {
  readonly url: string;
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** Scheme and host as the client called them (`X-Forwarded-*` only from a trusted proxy). */
  readonly origin: string;
  /** The client's address (`X-Forwarded-For` only through trusted proxies). */
  readonly ip: string;
}

/** A request on a fast route: the raw body, read whole within the route's limit. */
export interface FastRequest<T = undefined> extends FastRequestHead {
  readonly body: Buffer;
  /** What the route's `admit` resolved with. */
  readonly admitted: T;
}

export interface FastAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface FastRoute<T = undefined> {
  readonly method: 'POST';
  /** Literal segments and `:name` parameters, e.g. `/v1/callbacks/whatsapp/:credentialId`. */
  readonly path: string;
  /** Largest body: a larger declared length is refused before reading, a longer stream while reading. */
  readonly bodyLimitBytes: number;
  /** Media types accepted (without parameters); anything else is refused (400 CONTENT_TYPE_INVALID). */
  readonly contentTypes: readonly string[];
  /** The byte budget this route's bodies count against (503 with Retry-After beyond it). */
  readonly inFlight?: InFlightBytes;
  /**
   * Runs before any of the body is read (e.g. looks up what the path names); a rejection is
   * answered at once and the connection closed, the body unread.
   */
  admit?(head: FastRequestHead): Promise<T>;
  /** Throws coded errors, answered in the service's one error shape. */
  handle(request: FastRequest<T>): Promise<FastAnswer>;
}

export interface FastRoutesInstallOptions {
  /** Whose `X-Forwarded-*` headers are believed; none when not given. */
  readonly trustedProxies?: TrustedProxies;
}

interface CompiledRoute {
  readonly route: FastRoute<unknown>;
  readonly segments: readonly { readonly literal?: string; readonly param?: string }[];
}

/** One request being served: what the answer and the request log line need. */
interface Exchange {
  readonly route: FastRoute<unknown>;
  readonly params: Record<string, string>;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly client: ClientOrigin;
  readonly started: number;
}

// Answered with every 503 of a fast route: providers and clients that honour it come back shortly.
const RETRY_AFTER_SECONDS = '1';
// How long a connection refused with its body unread stays half-open for the client to read the answer.
const LINGER_MS = 2_000;

/**
 * Routes answered before Fastify and Nest see the request: for the few hot endpoints whose cost per
 * request is mostly the framework's. Measured on webhook-ingest (one signed callback per request):
 * 105 µs of CPU per callback through Nest on Fastify, 61-63 µs on a fast route, the difference being
 * Fastify's content-type parsing (an AsyncResource per body), its hooks and reply, and Nest's router.
 * A fast route keeps what those gave: a body limit (413 from the declared length or while reading),
 * the media types it accepts, the one error shape (`describeError`) and the request log line. It
 * adds what a public intake needs before it buffers anything: `admit` (e.g. 404 for an unknown id
 * with the body unread) and a shared in-flight byte budget (503 beyond it). Everything else, and any
 * request no fast route matches, goes to Fastify unchanged.
 */
@Injectable()
export class FastRoutes {
  private readonly routes: CompiledRoute[] = [];
  private proxies = new TrustedProxies([]);

  register<T>(route: FastRoute<T>): void {
    const segments = route.path
      .split('/')
      .slice(1)
      .map((part) => (part.startsWith(':') ? { param: part.slice(1) } : { literal: part }));
    this.routes.push({ route: route as FastRoute<unknown>, segments });
  }

  /**
   * Puts the fast routes in front of the server's request listeners (Fastify's): a matching request is
   * answered here, any other is passed to them as before.
   */
  install(server: Server, options: FastRoutesInstallOptions = {}): void {
    this.proxies = options.trustedProxies ?? this.proxies;
    const framework = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const match = this.routes.length === 0 ? undefined : this.match(req);
      if (match !== undefined) {
        this.serve({
          route: match.route,
          params: match.params,
          req,
          res,
          client: this.proxies.clientOf(req),
          started: performance.now(),
        });
        return;
      }
      for (const listener of framework) listener.call(server, req, res);
    });
  }

  private match(
    req: IncomingMessage,
  ): { route: FastRoute<unknown>; params: Record<string, string> } | undefined {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const parts = (query === -1 ? url : url.slice(0, query)).split('/');
    for (const { route, segments } of this.routes) {
      if (route.method !== req.method || parts.length !== segments.length + 1 || parts[0] !== '') continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < segments.length && matched; i++) {
        const segment = segments[i];
        const part = parts[i + 1] ?? '';
        if (segment?.literal !== undefined) matched = part === segment.literal;
        else if (segment?.param !== undefined && part !== '') params[segment.param] = safeDecode(part);
        else matched = false;
      }
      if (matched) return { route, params };
    }
    return undefined;
  }

  /** Everything that can be decided before the body is read, then the body. */
  private serve(exchange: Exchange): void {
    const { route, req, client } = exchange;
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!route.contentTypes.includes(mediaType)) {
      const reason = `must be one of ${route.contentTypes.join(', ')}`;
      refuseUnread(
        exchange,
        InvalidInputError.field(HttpErrorCode.ContentTypeInvalid, 'content-type', reason),
      );
      return;
    }
    const declared = declaredLength(req);
    if (declared !== undefined && declared > route.bodyLimitBytes) {
      refuseUnread(exchange, tooLarge(route));
      return;
    }
    const head: FastRequestHead = {
      url: req.url ?? '',
      params: exchange.params,
      headers: req.headers,
      origin: `${client.protocol}://${client.host}`,
      ip: client.ip,
    };
    let admission: Promise<unknown>;
    try {
      admission = route.admit === undefined ? Promise.resolve(undefined) : route.admit(head);
    } catch (error: unknown) {
      refuseUnread(exchange, error);
      return;
    }
    admission.then(
      (admitted) => {
        if (req.destroyed) return; // the client left while we looked
        const reserved = declared ?? 0;
        if (reserved > 0 && route.inFlight !== undefined && !route.inFlight.tryTake(reserved)) {
          refuseUnread(exchange, busy(route.inFlight));
          return;
        }
        readBody(exchange, head, admitted, reserved);
      },
      (error: unknown) => refuseUnread(exchange, error),
    );
  }
}

/**
 * Reads the body within the route's limit and byte budget, then calls the handler. The bytes taken
 * from the budget are given back once the handler is done, or when reading stops early.
 */
function readBody(exchange: Exchange, head: FastRequestHead, admitted: unknown, reserved: number): void {
  const { route, req } = exchange;
  const chunks: Buffer[] = [];
  let size = 0;
  let held = reserved;
  let done = false;
  const release = (): void => {
    if (held > 0) route.inFlight?.give(held);
    held = 0;
  };
  const stop = (error: unknown): void => {
    if (done) return;
    done = true;
    chunks.length = 0;
    release();
    req.pause(); // read no further
    refuseUnread(exchange, error);
  };
  req.on('data', (chunk: Buffer) => {
    if (done) return;
    size += chunk.length;
    if (size > route.bodyLimitBytes) return stop(tooLarge(route));
    if (size > held && route.inFlight !== undefined) {
      if (!route.inFlight.tryTake(size - held)) return stop(busy(route.inFlight));
      held = size;
    }
    chunks.push(chunk);
  });
  req.on('error', stop);
  // An aborted request ends with 'close' and no 'end'.
  req.on('close', () => {
    if (!done) stop(new Error('request aborted'));
  });
  req.on('end', () => {
    if (done) return;
    done = true;
    // A callback body mostly arrives in one chunk: used as it is, not copied.
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
    let result: Promise<FastAnswer>;
    try {
      result = route.handle({ ...head, body, admitted });
    } catch (error: unknown) {
      release();
      answerError(exchange, error);
      return;
    }
    result.then(
      (ok) => {
        release();
        answer(exchange, ok.status, ok.contentType, ok.body);
      },
      (error: unknown) => {
        release();
        answerError(exchange, error);
      },
    );
  });
}

function answer(exchange: Exchange, status: number, contentType: string, body: string, err?: unknown): void {
  const { res } = exchange;
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...(status === 503 ? { 'retry-after': RETRY_AFTER_SECONDS } : {}),
  });
  res.end(body);
  writeFastRequestLog(exchange, performance.now() - exchange.started, err);
}

function answerError(exchange: Exchange, error: unknown): void {
  const [status, body] = describeError(error);
  answer(
    exchange,
    status,
    'application/json; charset=utf-8',
    JSON.stringify(body),
    status >= 500 ? error : undefined,
  );
}

/**
 * An answer given with (some of) the body unread, which is never read. Not ended the usual way: Node
 * would then close the socket at once, and closing a socket with unread data resets the connection,
 * a reset that can reach a client still sending before our answer does (it sees EPIPE, not the
 * answer). Instead the answer is written, the socket half-closed (the answer, then FIN), nothing more
 * is read, and the socket is closed after LINGER_MS, when the client has read the answer.
 */
function refuseUnread(exchange: Exchange, error: unknown): void {
  const { req, res } = exchange;
  if (res.headersSent || res.destroyed) return;
  const [status, body] = describeError(error);
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
    ...(status === 503 ? { 'retry-after': RETRY_AFTER_SECONDS } : {}),
  });
  res.write(text);
  const socket = req.socket;
  socket.end();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
  writeFastRequestLog(exchange, performance.now() - exchange.started, status >= 500 ? error : undefined);
}

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined) return undefined;
  const declared = Number(header);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

function tooLarge(route: FastRoute<unknown>): TooLargeError {
  return new TooLargeError(HttpErrorCode.BodyTooLarge, `body larger than ${route.bodyLimitBytes} bytes`);
}

function busy(budget: InFlightBytes): UnavailableError {
  return new UnavailableError(
    HttpErrorCode.InFlightBytesExceeded,
    `request bodies in flight exceed ${budget.limitBytes} bytes`,
  );
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The request log line of a fast route: as the Fastify hook writes it (level by status, probes never). */
function writeFastRequestLog(exchange: Exchange, elapsedMs: number, cause?: unknown): void {
  const { req, res, params, client } = exchange;
  // Unset until the logging module started (a registry used on its own, as in its tests).
  const logger = PinoLogger.root as PinoLogger['logger'] | undefined;
  const level = requestLogLevel(res.statusCode);
  if (logger === undefined || !logger.isLevelEnabled(level) || isProbeUrl(req.url)) return;
  const responseTime = Math.round(elapsedMs);
  // Serialized by the platform's request serializer (header allowlist), with the client as trusted.
  const request = Object.assign(req, { params, ip: client.ip, protocol: client.protocol });
  if (res.statusCode >= 500) {
    const err = cause instanceof Error ? cause : new Error(`failed with status code ${res.statusCode}`);
    logger[level]({ req: request, res, err, responseTime }, 'request errored');
    return;
  }
  logger[level]({ req: request, res, responseTime }, 'request completed');
}
