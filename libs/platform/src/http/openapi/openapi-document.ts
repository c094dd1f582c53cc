import { createHash } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import {
  DocumentBuilder,
  type OpenAPIObject,
  type OperationObject,
  type PathItemObject,
  type ResponseObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { AuthErrorCode } from '@ums/contracts';
import type { JsonSchema } from '../../json-schema/class-json-schema';
import { ERROR_SCHEMAS } from './openapi-errors';
import { BEARER_SCHEME, completeOperation } from './openapi-operation';
import { documentedRoutes, operationIdOf } from './openapi-routes';

/** What a service says of its API in its OpenAPI document. */
export interface OpenApiInfo {
  readonly title: string;
  readonly description: string;
  /** The API's version (its paths carry the major one: `/v1/...`). */
  readonly version: string;
}

export const OPENAPI_VERSION = '3.1.0';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

const COMMON_DESCRIPTION = [
  'Every route but this document needs a bearer token holding the scope its operation names: a tenant API key',
  '(`umsk_...`), a JWT of the identity provider, or the operator key (`umso_...`, which names the tenant to act for',
  'in `X-Ums-Tenant`). Errors answer `{"error": {"code", "message", "fields"?, "details"?}}`; each operation lists',
  'the codes it can answer (all of them are described in docs/error-codes.md).',
].join(' ');

/**
 * The OpenAPI 3.1 document of an application: its routes as @nestjs/swagger scans them, completed from
 * the metadata the scan does not read (the swc build runs no Swagger plugin): request schemas from the
 * DTOs' class-validator rules, the answer's view schema and example (`@ApiAnswer`), the scope
 * (`@Requires`) or the reason a route is public (`@Public`), and every error code a route can answer.
 * Needs no instances: works on an application created in preview mode (no connection made). A DTO
 * whose schema would be looser than its validators is reported to `onProblem` (thrown without one).
 */
export async function buildOpenApiDocument(
  app: INestApplicationContext,
  info: OpenApiInfo,
  onProblem?: (problem: string) => void,
): Promise<OpenAPIObject> {
  const config = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle(info.title)
    .setDescription(`${info.description}\n\n${COMMON_DESCRIPTION}`)
    .setVersion(info.version)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: "A tenant API key, a JWT or the operator key; its scopes must include the operation's.",
      },
      BEARER_SCHEME,
    )
    .build();
  const scanned = SwaggerModule.createDocument(
    app as Parameters<typeof SwaggerModule.createDocument>[0],
    config,
    {
      operationIdFactory: operationIdOf,
    },
  );
  const routes = new Map(documentedRoutes(app).map((route) => [route.operationId, route]));
  const schemas = new Map<string, JsonSchema>(Object.entries(ERROR_SCHEMAS));
  const context = { schemas, ...(onProblem === undefined ? {} : { onProblem }) };
  for (const [path, item] of Object.entries(scanned.paths)) {
    for (const operation of operationsOf(item)) {
      const route = routes.get(operation.operationId ?? '');
      if (route === undefined)
        throw new Error(`No route found for the operation ${operation.operationId ?? path}`);
      await completeOperation(operation, route, path, context);
    }
  }
  const sorted = [...schemas.entries()].sort(([a], [b]) => a.localeCompare(b));
  const responses = shareRepeatedResponses(Object.values(scanned.paths).flatMap(operationsOf));
  return {
    ...scanned,
    components: { ...scanned.components, schemas: Object.fromEntries(sorted), responses },
  } as OpenAPIObject;
}

/** The error codes an error answer lists (its schema's `code` enum). */
function codesOf(response: ResponseObject): string[] {
  const schema = response.content?.['application/json']?.schema as
    { allOf?: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }[] } | undefined;
  return schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum ?? [];
}

/** A name telling what an error answer holds: its status, codes and scope (`404_CAMPAIGN_NOT_FOUND`). */
function responseName(status: string, response: ResponseObject): string {
  const [first = 'ERROR', ...more] = codesOf(response);
  const example = response.content?.['application/json']?.examples?.[AuthErrorCode.ScopeMissing] as
    { value?: { error?: { details?: { scope?: string } } } } | undefined;
  const scope = example?.value?.error?.details?.scope;
  return `${status}_${first}${scope === undefined ? '' : `_${scope.replace(':', '.')}`}${more.length === 0 ? '' : `_and_${more.length}_more`}`;
}

/**
 * Error answers that several operations give alike (every scoped route's 401, most 503s) are moved to
 * `components.responses` and referred to, which keeps the document a fraction of its size. Names are
 * stable: the status and codes, with a digest of the answer when several answers would share one.
 */
function shareRepeatedResponses(operations: readonly OperationObject[]): Record<string, ResponseObject> {
  const errors = operations.flatMap((op) =>
    Object.entries(op.responses)
      .filter(([status]) => /^[45]/.test(status))
      .map(([status, response]) => ({
        op,
        status,
        response: response as ResponseObject,
        text: JSON.stringify(response),
      })),
  );
  const uses = new Map<string, number>();
  for (const { text } of errors) uses.set(text, (uses.get(text) ?? 0) + 1);
  const repeated = errors.filter(({ text }) => (uses.get(text) ?? 0) > 1);
  const variants = new Map<string, Set<string>>();
  for (const { status, response, text } of repeated) {
    const name = responseName(status, response);
    variants.set(name, (variants.get(name) ?? new Set()).add(text));
  }
  const shared: Record<string, ResponseObject> = {};
  for (const { op, status, response, text } of repeated) {
    const base = responseName(status, response);
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 8);
    const name = (variants.get(base)?.size ?? 0) > 1 ? `${base}_${digest}` : base;
    shared[name] = response;
    op.responses[status] = { $ref: `#/components/responses/${name}` };
  }
  return Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b)));
}

function operationsOf(item: PathItemObject): OperationObject[] {
  return METHODS.map((method) => item[method]).filter((op): op is OperationObject => op !== undefined);
}
