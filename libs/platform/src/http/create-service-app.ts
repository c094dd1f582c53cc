import multipart from '@fastify/multipart';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { ErrorResponseFilter } from './error-response.filter';
import { FastRoutes } from './fast-routes.registry';
import { applyJsonBodyPolicy } from './json-body';
import { serveOpenApi } from './openapi/serve-openapi';
import { TrustedProxies } from './trusted-proxies';
import { createValidationPipe } from './validation.pipe';

export interface ServiceAppOptions {
  /** Largest JSON/form body accepted by default; routes may set their own limits. */
  readonly bodyLimitBytes?: number;
  /** Accept multipart uploads, streamed (never buffered), with this per-file size limit. */
  readonly multipartFileLimitBytes?: number;
}

/** A Nest application on Fastify with our logger, validation pipe and error shape; not yet listening. */
export async function createServiceApp(
  rootModule: Type<unknown>,
  options: ServiceAppOptions = {},
): Promise<NestFastifyApplication> {
  // X-Forwarded-* count only from TRUSTED_PROXY_CIDRS (validated here, before anything starts).
  const trustedProxies = TrustedProxies.fromEnv();
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimitBytes ?? 1_048_576,
    // Path parameters can be addresses (`/v1/opt-outs/email/<address>`): an e-mail is up to 254
    // characters, more once percent-encoded; Fastify's default of 100 answered 414 to longer ones.
    maxParamLength: 1024,
    trustProxy: trustedProxies.fastifyRule,
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  if (options.multipartFileLimitBytes !== undefined) {
    await app.register(multipart, {
      limits: { fileSize: options.multipartFileLimitBytes, files: 1, fields: 20, fieldSize: 64 * 1024 },
      throwFileSizeLimit: true,
    });
  }
  app.useGlobalPipes(createValidationPipe());
  applyJsonBodyPolicy(app);
  app.useGlobalFilters(new ErrorResponseFilter());
  await serveOpenApi(app);
  // Fast routes (registered by features while their modules start) are answered before Fastify.
  app.get(FastRoutes).install(app.getHttpServer(), { trustedProxies });
  return app;
}
