import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import fastifyHttpProxy from '@fastify/http-proxy';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, RawServerBase, RouteGenericInterface } from 'fastify';
import { answerErrorsInPlatformShape } from '../http/error-shape';
import { ConsoleProxyConfig, originOf } from './console-proxy.config';
import { ConsoleProxyMetrics } from './console-proxy.metrics';
import { type ConsoleApi, pathRefusal, upstreamFailure } from './upstream-error';

/** The APIs the browser reaches through the console: the path prefix and where it goes. */
export const CONSOLE_ROUTES: readonly { readonly prefix: string; readonly api: ConsoleApi }[] = [
  { prefix: '/api/scheduler', api: 'campaign-scheduler' },
  { prefix: '/api/dispatcher', api: 'webhook-dispatcher' },
];

/**
 * The only request headers passed on: the caller's credential and tenant, the idempotency key, and
 * what the body is and which answer is wanted. Cookies, forwarding headers, `accept-encoding` (answers
 * come back unencoded, so streams are never held back by compression) and anything else stay here.
 * `content-length` is framing, kept so the API can refuse a body too large before reading it.
 */
export const FORWARDED_HEADERS: readonly string[] = [
  'authorization',
  'x-ums-tenant',
  'idempotency-key',
  'content-type',
  'accept',
  'content-length',
];

/** The headers of a call as passed on: the allowlisted ones, and the API's host. */
export function forwardedHeaders(incoming: IncomingHttpHeaders): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { host: incoming.host };
  for (const name of FORWARDED_HEADERS) {
    const value = incoming[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** Whether an answer of this Content-Type is a stream of server-sent events. */
export function isEventStream(contentType: unknown): boolean {
  return typeof contentType === 'string' && contentType.toLowerCase().startsWith('text/event-stream');
}

/** An API's answer headers as given to the browser; a stream is marked to pass unbuffered. */
export function answerHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  if (isEventStream(headers['content-type'])) {
    // nginx (an ingress in front of the console) would otherwise buffer the stream.
    return { ...headers, 'x-accel-buffering': 'no', 'cache-control': 'no-cache' };
  }
  return headers;
}

/**
 * Passes the browser's calls under `/api/scheduler/*` and `/api/dispatcher/*` on to the APIs with
 * the prefix removed (`/api/scheduler/v1/campaigns` -> `<CONSOLE_SCHEDULER_URL>/v1/campaigns`), bodies
 * and answers streamed both ways (uploads are never read whole; server-sent events pass as they come).
 * The console holds no key: the API checks the caller's `Authorization`. When the API cannot answer,
 * the console answers in the platform's error shape with an UPSTREAM_* code (upstreamFailure).
 * When the service stops, the event streams it passes on are cut (they never end by themselves, and
 * the drain would wait for them): the pages reconnect, to another replica.
 */
@Injectable()
export class ConsoleProxyService implements OnModuleInit {
  private readonly logger = new Logger('proxy');
  /** The event streams being passed on now (the API's side). */
  private readonly streams = new Set<Readable>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: ConsoleProxyConfig,
    private readonly metrics: ConsoleProxyMetrics,
  ) {}

  async onModuleInit(): Promise<void> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const upstreams: Record<ConsoleApi, string> = {
      'campaign-scheduler': originOf(this.config.CONSOLE_SCHEDULER_URL),
      'webhook-dispatcher': originOf(this.config.CONSOLE_DISPATCHER_URL),
    };
    fastify.addHook('preClose', (done) => {
      for (const stream of this.streams) stream.destroy();
      done();
    });
    for (const route of CONSOLE_ROUTES) {
      await fastify.register(async (scope) => this.proxy(scope, route.api, upstreams[route.api]), {
        prefix: route.prefix,
      });
    }
  }

  private async proxy(scope: FastifyInstance, api: ConsoleApi, upstream: string): Promise<void> {
    // The service's body parsers (JSON parsed, other types refused) do not apply here: every body is
    // passed on as it streams in, and the API reads it under its own rules.
    scope.removeAllContentTypeParsers();
    answerErrorsInPlatformShape(scope, pathRefusal);
    const timeout = this.config.CONSOLE_UPSTREAM_TIMEOUT_MS;
    await scope.register(fastifyHttpProxy, {
      upstream,
      disableRequestLogging: true,
      undici: {
        // Verified TLS to an https API (@fastify/reply-from would otherwise skip the check).
        connect: { timeout: 5_000, rejectUnauthorized: true },
        // Live streams hold their connection for as long as a page is open: no cap, or calls would queue.
        connections: null,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      },
      replyOptions: {
        rewriteRequestHeaders: (request) => forwardedHeaders(request.headers),
        rewriteHeaders: (headers) => answerHeaders(headers as IncomingHttpHeaders),
        // A 503 of the API is its answer to show, not a reason to call it again.
        retryDelay: () => null,
        onResponse: (_request, reply, res) => {
          this.metrics.answered.inc({ api, status: `${Math.floor(res.statusCode / 100)}xx` });
          if (isEventStream(reply.getHeader('content-type'))) this.track(res.stream);
          void reply.send(res.stream);
        },
        onError: (reply, { error }) => this.fail(reply, api, error),
      },
    });
  }

  private track(stream: Readable): void {
    this.streams.add(stream);
    stream.once('close', () => this.streams.delete(stream));
  }

  private fail(
    reply: FastifyReply<RouteGenericInterface, RawServerBase>,
    api: ConsoleApi,
    error: unknown,
  ): void {
    const failure = upstreamFailure(api, error);
    this.metrics.failed.inc({ api, code: failure.code });
    // The log names the cause (with the API's address); the answer does not.
    this.logger.warn({ err: error, api, code: failure.code }, `${api} API call failed: ${failure.code}`);
    if (failure.status === 503) void reply.header('retry-after', '1');
    void reply.status(failure.status).type('application/json; charset=utf-8').send(failure.body);
  }
}
