import type { INestApplication, Type } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { HttpConfig, RuntimeConfig } from '../config/common.config';
import { createServiceApp, type ServiceAppOptions } from '../http/create-service-app';
import { connectKafkaTransport } from '../kafka/kafka-transport.connect';
import { ManagementServer } from '../management/management-server';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { applyHeapGrowth } from './heap-growth';
import { installProcessSafetyNet } from './process-safety-net';

export type BootstrapOptions = ServiceAppOptions;

/**
 * Starts a service on Fastify (the API listener, HTTP_HOST:HTTP_PORT), its Kafka handlers as a
 * microservice (KafkaTransport) and its management listener (MANAGEMENT_HOST:MANAGEMENT_PORT: health
 * and metrics), with JSON logs and graceful shutdown: on SIGTERM/SIGINT readiness turns 503 and Nest
 * stops the consumers (in-flight work finishes and commits), then closes producers, pools and, last,
 * the management listener. If that takes longer than
 * SHUTDOWN_TIMEOUT_MS the process exits anyway; Kafka redelivers whatever was not committed, and the
 * idempotent handlers absorb it. A lost connection never ends the process: unhandled rejections and
 * infrastructure errors nobody listened to are logged and counted (installProcessSafetyNet).
 */
export async function bootstrapService(
  rootModule: Type<unknown>,
  options: BootstrapOptions = {},
): Promise<INestApplication> {
  const app = await createServiceApp(rootModule, options);
  const logger = app.get(Logger);
  installProcessSafetyNet({ logger, metrics: app.get(MetricsRegistry) });
  const http = app.get(HttpConfig);
  const heapFlag = applyHeapGrowth(app.get(RuntimeConfig).HEAP_GROWING_PERCENT);
  if (heapFlag !== undefined) logger.log(`V8 ${heapFlag}`);
  let shuttingDown = false;
  // `on`, not `once`: a second signal (a keeper passing on what pkill also sent) must not end the drain.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
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
  // Kafka handlers run as a microservice of this app. Its consumers start once every provider has
  // started (init: module and bootstrap hooks), and before the API listens.
  await app.init();
  if (connectKafkaTransport(app)) await app.startAllMicroservices();
  await app.listen(http.HTTP_PORT, http.HTTP_HOST);
  logger.log(`Listening on ${await app.getUrl()}`);
  // After the API listens, so that a ready answer means the API accepts connections.
  const management = await app.get(ManagementServer).listen();
  logger.log(`Management (health, metrics) on ${management}`);
  return app;
}
