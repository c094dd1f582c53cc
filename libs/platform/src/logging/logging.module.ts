import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ServiceInfo } from '../bootstrap/service-info';
import { LogConfig } from '../config/common.config';
import { isProbeUrl, requestLogLevel } from './request-log-level';
import { RequestLogHook } from './request-log.hook';

/**
 * How request logs are written (one line per answered request, level by status: 5xx error, 4xx warn,
 * others debug; health and metrics probes are never logged):
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
              redact: {
                paths: [
                  'req.headers.authorization',
                  'req.headers["x-hub-signature-256"]',
                  '*.secret',
                  '*.password',
                ],
                censor: '[redacted]',
              },
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
