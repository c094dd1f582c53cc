import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { HttpConfig } from '../config/common.config';

export interface BootstrapOptions {
  /** Largest request body accepted by default; routes may set their own limits. */
  readonly bodyLimitBytes?: number;
}

/**
 * Starts a service on Fastify with JSON logs and graceful shutdown: on SIGTERM/SIGINT Nest
 * stops consumers (in-flight work finishes and commits), then closes producers and pools.
 * If that takes longer than SHUTDOWN_TIMEOUT_MS the process exits anyway; Kafka redelivers
 * whatever was not committed, and the idempotent handlers absorb it.
 */
export async function bootstrapService(
  rootModule: Type<unknown>,
  options: BootstrapOptions = {},
): Promise<INestApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: options.bodyLimitBytes ?? 1_048_576, trustProxy: true });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, { bufferLogs: true });
  const logger = app.get(Logger);
  app.useLogger(logger);
  app.flushLogs();
  const http = app.get(HttpConfig);
  let shuttingDown = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.log(`${signal} received: draining`);
      setTimeout(() => {
        logger.error(`Shutdown took longer than ${http.SHUTDOWN_TIMEOUT_MS} ms: exiting`);
        process.exit(1);
      }, http.SHUTDOWN_TIMEOUT_MS).unref();
      app
        .close()
        .then(() => process.exit(0))
        .catch((error: unknown) => {
          logger.error({ err: error }, 'Shutdown failed');
          process.exit(1);
        });
    });
  }
  await app.listen(http.HTTP_PORT, http.HTTP_HOST);
  logger.log(`Listening on ${await app.getUrl()}`);
  return app;
}
