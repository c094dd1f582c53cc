import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ServiceInfo } from '../bootstrap/service-info';
import { LogConfig } from '../config/common.config';

/** JSON logs through pino; request logs skip health and metrics probes. */
@Module({
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
          autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') || req.url === '/metrics' },
          customLogLevel: (_req, res, err) =>
            err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'debug',
        },
      }),
    }),
  ],
})
export class LoggingModule {}
