import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import { isProbeUrl, requestLogLevel } from './request-log-level';

/**
 * Request logs without middleware (`requestLogs: 'hook'`): one line per answered request, written
 * after the answer, with the fields pino-http writes (`req`, `res`, `responseTime`, and `err` for
 * 5xx) through the same root logger (serializers, redaction). Nothing is serialized unless the line's
 * level is enabled, so at the usual levels a 2xx costs one comparison.
 */
@Injectable()
export class RequestLogHook implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter as HttpAdapterHost['httpAdapter'] | undefined;
    if (adapter === undefined) return; // a module without an HTTP server (tests, scripts)
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      writeRequestLog(PinoLogger.root, request, reply);
      done();
    });
  }
}

/** Writes the request line of one answered request, as pino-http would have. */
export function writeRequestLog(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const statusCode = reply.statusCode;
  const level = requestLogLevel(statusCode);
  if (!logger.isLevelEnabled(level) || isProbeUrl(request.url)) return;
  const responseTime = Math.round(reply.elapsedTime);
  // The Fastify request serializes as the raw one does (id, method, url, headers, remote address),
  // with its query and route parameters.
  if (statusCode >= 500) {
    const err = new Error(`failed with status code ${statusCode}`);
    logger[level]({ req: request, res: reply.raw, err, responseTime }, 'request errored');
    return;
  }
  logger[level]({ req: request, res: reply.raw, responseTime }, 'request completed');
}
