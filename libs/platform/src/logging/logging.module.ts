import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { stdSerializers } from 'pino';
import { ServiceInfo } from '../bootstrap/service-info';
import { LogConfig } from '../config/common.config';
import { isProbeUrl, requestLogLevel } from './request-log-level';
import { RequestLogHook } from './request-log.hook';
import { serializeRequest } from './request-log-serializer';

/**
 * The serializers of every service log: requests through the header allowlist and query redaction
 * (serializeRequest), answers and errors as pino writes them. Given as they are (not wrapped around
 * pino's own request serializer), so the request serializer sees the request itself: a Fastify
 * request's client address and protocol come from the trusted-proxy rule.
 */
export const LOG_SERIALIZERS = {
  req: serializeRequest,
  res: stdSerializers.res,
  err: stdSerializers.err,
} as const;

/**
 * How request logs are written (one line per answered request, level by status: 5xx error, 4xx warn,
 * others debug; health and metrics probes are never logged; headers from LOGGED_REQUEST_HEADERS only):
 * - `middleware`: pino-http on every route. Each request gets a child logger bound to the
 *   serialized request and a request context, so what the handlers log carries `req` too.
 * - `hook`: a Fastify `onResponse` hook writes the same line with the same fields, serializing the
 *   request only when that line's level is enabled. No middleware runs (no per-request child logger,
 *   no request context, no async context tracking), which costs much less per request; what the
 *   handlers log carries no `req`. For high-rate services whose handlers log little of their own,
 *   and for consuming services: the request context is an AsyncLocalStorage, and once one request
 *   has entered it (a health probe will) Node tracks the async context of every promise in the
 *   process, consumers' included (measured on Node 20: an await-heavy loop took 1.8-1.9x the CPU).
 */
export type RequestLogMode = 'middleware' | 'hook';

/** JSON logs through pino; request logs skip health and metrics probes. */
@Module({})
export class LoggingModule {
  static forRoot(requestLogs: RequestLogMode = 'middleware'): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [LogConfig, ServiceInfo],
          useFactory: (config: LogConfig, service: ServiceInfo) => ({
            pinoHttp: {
              level: config.LOG_LEVEL,
              base: { service: service.name, instance: service.instanceId },
              serializers: LOG_SERIALIZERS,
              wrapSerializers: false,
              // Request headers are logged from an allowlist (LOGGED_REQUEST_HEADERS); these catch
              // fields of what handlers log themselves.
              redact: { paths: ['*.secret', '*.password'], censor: '[redacted]' },
              autoLogging: { ignore: (req) => isProbeUrl(req.url) },
              customLogLevel: (_req, res, err) => requestLogLevel(res.statusCode, err),
            },
            // In hook mode the pino-http middleware is mounted on no route (nor is middie): the logger
            // it builds stays the root logger of the service, which the hook writes with.
            ...(requestLogs === 'hook' ? { forRoutes: [] } : {}),
          }),
        }),
      ],
      providers: requestLogs === 'hook' ? [RequestLogHook] : [],
    };
  }
}
