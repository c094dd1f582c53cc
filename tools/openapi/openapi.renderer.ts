import 'reflect-metadata';
import type { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument, type OpenApiInfo, OpenApiPublication } from '@ums/platform';
import { TEST_OPERATOR_KEY, TEST_SECRETS_KEYS } from '@ums/testing';

/** The services with an HTTP API described in docs/openapi/<service>.json. */
export const OPENAPI_SERVICES = ['campaign-scheduler', 'webhook-dispatcher'] as const;
export type OpenApiService = (typeof OPENAPI_SERVICES)[number];

/**
 * What the services' config validation needs when their modules are loaded (PlatformModule reads the
 * environment as the module is defined): placeholders, public and never connected to, because the
 * application is created in preview mode, which builds no provider and opens no connection.
 */
const PREVIEW_ENV: Readonly<Record<string, string>> = {
  HTTP_PORT: '3000',
  KAFKA_BROKERS: '127.0.0.1:9',
  MYSQL_USER: 'openapi_preview',
  SECRETS_KEYS: TEST_SECRETS_KEYS,
  AUTH_OPERATOR_KEY: TEST_OPERATOR_KEY,
};

async function rootModule(service: OpenApiService): Promise<Type<unknown>> {
  // The generator documents the apps' HTTP APIs: it loads their modules (in preview mode, nothing starts).
  if (service === 'campaign-scheduler') {
    // eslint-disable-next-line @nx/enforce-module-boundaries
    return (await import('../../apps/campaign-scheduler/src/app.module')).CampaignSchedulerModule;
  }
  // eslint-disable-next-line @nx/enforce-module-boundaries
  return (await import('../../apps/webhook-dispatcher/src/app.module')).WebhookDispatcherModule;
}

/**
 * Runs `use` on a service's application created in preview mode from its module: every controller and
 * its metadata, no provider built, no Kafka, MySQL or Redis needed.
 */
export async function withPreviewApp<T>(
  service: OpenApiService,
  use: (app: INestApplicationContext, info: OpenApiInfo) => Promise<T>,
): Promise<T> {
  Object.assign(process.env, PREVIEW_ENV);
  const app = await NestFactory.create(await rootModule(service), new FastifyAdapter(), {
    preview: true,
    logger: false,
  });
  try {
    const info = app.get(OpenApiPublication).info;
    if (info === undefined) throw new Error(`${service} declares no openApi in its PlatformModule options`);
    return await use(app, info);
  } finally {
    await app.close();
  }
}

/**
 * The OpenAPI document of a service, as it serves it at /openapi.json (built by the same function). A
 * DTO whose schema would be looser than its validators throws, or is listed in `problems` when given.
 */
export function renderOpenApiDocument(service: OpenApiService, problems?: string[]): Promise<OpenAPIObject> {
  const onProblem = problems === undefined ? undefined : (problem: string): number => problems.push(problem);
  return withPreviewApp(service, (app, info) => buildOpenApiDocument(app, info, onProblem));
}

/** The document as committed: two-space JSON with a final newline. */
export function openApiFileText(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
