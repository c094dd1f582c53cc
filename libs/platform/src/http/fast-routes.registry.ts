import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { InvalidInputError, TooLargeError } from '../errors/coded-error';
import { isProbeUrl, requestLogLevel } from '../logging/request-log-level';
import { describeError } from './error-response.filter';

/** A request on a fast route: the raw body, read whole within the route's limit. */
export interface FastRequest {
  readonly url: string;
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Scheme and host as the client called them (`X-Forwarded-*` first, as Fastify's trustProxy). */
  readonly origin: string;
}

export interface FastAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface FastRoute {
  readonly method: 'POST';
  /** Literal segments and `:name` parameters, e.g. `/v1/callbacks/whatsapp/:credentialId`. */
  readonly path: string;
  readonly bodyLimitBytes: number;
  /** Media types accepted (without parameters); anything else is refused (400 CONTENT_TYPE_INVALID). */
  readonly contentTypes: readonly string[];
  /** Throws coded errors, answered in the service's one error shape. */
  handle(request: FastRequest): Promise<FastAnswer>;
}

interface CompiledRoute {
  readonly route: FastRoute;
  readonly segments: readonly { readonly literal?: string; readonly param?: string }[];
}

/**
 * Routes answered before Fastify and Nest see the request: for the few hot endpoints whose cost per
 * request is mostly the framework's. Measured on webhook-ingest (one signed callback per request):
 * 105 µs of CPU per callback through Nest on Fastify, 61-63 µs on a fast route, the difference being
 * Fastify's content-type parsing (an AsyncResource per body), its hooks and reply, and Nest's router.
 * A fast route keeps what those gave: a body limit (413 from the declared length or while reading),
 * the media types it accepts, the one error shape (`describeError`) and the request log line.
 * Everything else, and any request no fast route matches, goes to Fastify unchanged.
 */
@Injectable()
export class FastRoutes {
  private readonly routes: CompiledRoute[] = [];

  register(route: FastRoute): void {
    const segments = route.path
      .split('/')
      .slice(1)
      .map((part) => (part.startsWith(':') ? { param: part.slice(1) } : { literal: part }));
    this.routes.push({ route, segments });
  }

  /**
   * Puts the fast routes in front of the server's request listeners (Fastify's): a matching request is
   * answered here, any other is passed to them as before.
   */
  install(server: Server): void {
    const framework = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const match = this.routes.length === 0 ? undefined : this.match(req);
      if (match !== undefined) {
        this.serve(match.route, match.params, req, res);
        return;
      }
      for (const listener of framework) listener.call(server, req, res);
    });
  }

  private match(req: IncomingMessage): { route: FastRoute; params: Record<string, string> } | undefined {
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

  private serve(
    route: FastRoute,
    params: Record<string, string>,
    req: IncomingMessage,
    res: ServerResponse,
  ): void {
    const started = performance.now();
    const answer = (status: number, contentType: string, body: string, err?: unknown): void => {
      if (res.headersSent) return;
      res.writeHead(status, {
        'content-type': contentType,
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      writeFastRequestLog(req, res, params, performance.now() - started, err);
    };
    const fail = (error: unknown): void => {
      const [status, body] = describeError(error);
      if (status === 413) res.setHeader('connection', 'close'); // the rest of the body is not read
      answer(
        status,
        'application/json; charset=utf-8',
        JSON.stringify(body),
        status >= 500 ? error : undefined,
      );
    };

    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!route.contentTypes.includes(mediaType)) {
      req.resume();
      fail(
        InvalidInputError.field(
          'CONTENT_TYPE_INVALID',
          'content-type',
          `must be one of ${route.contentTypes.join(', ')}`,
        ),
      );
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > route.bodyLimitBytes) {
      fail(new TooLargeError('BODY_TOO_LARGE', `body larger than ${route.bodyLimitBytes} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > route.bodyLimitBytes) {
        over = true;
        fail(new TooLargeError('BODY_TOO_LARGE', `body larger than ${route.bodyLimitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (error: Error) => {
      if (!over) fail(error);
      over = true;
    });
    req.on('end', () => {
      if (over) return;
      // A callback body mostly arrives in one chunk: used as it is, not copied.
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      let result: Promise<FastAnswer>;
      try {
        result = route.handle({
          url: req.url ?? '',
          params,
          headers: req.headers,
          body,
          origin: originOf(req),
        });
      } catch (error: unknown) {
        fail(error);
        return;
      }
      result.then((ok) => answer(ok.status, ok.contentType, ok.body), fail);
    });
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first?.split(',')[0]?.trim();
}

function originOf(req: IncomingMessage): string {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const proto = firstHeader(req.headers['x-forwarded-proto']) ?? (encrypted ? 'https' : 'http');
  const host = firstHeader(req.headers['x-forwarded-host']) ?? req.headers.host ?? '';
  return `${proto}://${host}`;
}

/** The request log line of a fast route: as the Fastify hook writes it (level by status, probes never). */
function writeFastRequestLog(
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
  elapsedMs: number,
  cause?: unknown,
): void {
  // Unset until the logging module started (a registry used on its own, as in its tests).
  const logger = PinoLogger.root as PinoLogger['logger'] | undefined;
  const level = requestLogLevel(res.statusCode);
  if (logger === undefined || !logger.isLevelEnabled(level) || isProbeUrl(req.url)) return;
  const responseTime = Math.round(elapsedMs);
  const request = Object.assign(req, { params });
  if (res.statusCode >= 500) {
    const err = cause instanceof Error ? cause : new Error(`failed with status code ${res.statusCode}`);
    logger[level]({ req: request, res, err, responseTime }, 'request errored');
    return;
  }
  logger[level]({ req: request, res, responseTime }, 'request completed');
}
