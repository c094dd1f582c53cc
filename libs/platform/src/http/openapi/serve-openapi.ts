import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocument } from './openapi-document';
import { OpenApiPublication } from './openapi-publication';

/** Where the browsable reference is: Swagger UI with the assets @nestjs/swagger ships (no CDN). */
export const DOCS_PATH = 'docs';

/**
 * Builds the service's OpenAPI document and serves it: `GET /openapi.json` (OpenApiController, public)
 * and the reference page at `/docs` with its assets (SwaggerModule, on the Fastify instance itself:
 * outside Nest's router, so public like the document it shows). Nothing for a service without `openApi`.
 */
export async function serveOpenApi(app: NestFastifyApplication): Promise<void> {
  const publication = app.get(OpenApiPublication);
  if (publication.info === undefined) return;
  // A DTO the generator cannot describe exactly is logged, not fatal: a test of the committed document
  // (tools/openapi) fails on it instead, and the service starts with a looser schema.
  const logger = new Logger('openapi');
  const document = await buildOpenApiDocument(app, publication.info, (problem) => logger.warn(problem));
  publication.publish(document);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    raw: false,
    customSiteTitle: publication.info.title,
    swaggerOptions: { persistAuthorization: false, displayOperationId: true },
  });
}
