import type {
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { TENANT_HEADER, type ViewSchema } from '@ums/contracts';
import {
  classJsonSchema,
  classJsonSchemas,
  type JsonSchema,
  type SchemaClass,
} from '../../json-schema/class-json-schema';
import { IDEMPOTENCY_KEY_HEADER, MAX_IDEMPOTENCY_KEY_CHARS } from '../idempotency-key';
import { errorResponses } from './openapi-errors';
import type { BoundInput, DocumentedRoute } from './openapi-routes';
import { type ApiEventSpec, apiExampleOf } from './openapi.decorators';

export const SCHEMA_PREFIX = '#/components/schemas/';
/** The security scheme every scoped operation names. */
export const BEARER_SCHEME = 'bearer';

const SUCCESS: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
};

/** What the operations of one document share while they are completed. */
export interface DocumentContext {
  /** The component schemas used so far, by name. */
  readonly schemas: Map<string, JsonSchema>;
  /** Where a DTO whose schema is looser than its validators is reported (see classJsonSchema); throws if not given. */
  readonly onProblem?: (problem: string) => void;
}

/** Completes one operation of the document from its route's metadata; schemas it uses go to the context. */
export async function completeOperation(
  operation: OperationObject,
  route: DocumentedRoute,
  path: string,
  context: DocumentContext,
): Promise<void> {
  operation.parameters = parameters(operation, route, path, context);
  const body = requestBody(route, context);
  if (body !== undefined) operation.requestBody = body;
  if (route.auth?.kind === 'scope') {
    operation.security = [{ [BEARER_SCHEME]: [route.auth.scope] }];
    operation.description = `Needs the \`${route.auth.scope}\` scope.`;
  } else if (route.auth?.kind === 'authenticated') {
    operation.security = [{ [BEARER_SCHEME]: [] }];
    operation.description = `Needs a valid credential, no scope: ${route.auth.reason}.`;
  } else if (route.auth?.kind === 'public') {
    operation.security = [];
    operation.description = `Public: ${route.auth.reason}.`;
  }
  operation.responses = {
    [String(route.status)]: successResponse(
      route,
      operation.responses[String(route.status)],
      context.schemas,
    ),
    ...(await errorResponses(route)),
  };
}

function asSchema(schema: JsonSchema): SchemaObject {
  return schema as SchemaObject;
}

/** Path, query and header parameters: from the bound DTOs' validators, then those Swagger found by name. */
function parameters(
  operation: OperationObject,
  route: DocumentedRoute,
  path: string,
  context: DocumentContext,
): ParameterObject[] {
  const found: ParameterObject[] = [];
  for (const input of route.inputs) {
    if (input.name === undefined && (input.source === 'query' || input.source === 'path')) {
      found.push(...dtoParameters(input, context));
    }
  }
  for (const known of operation.parameters ?? []) {
    if (isReference(known) || found.some((p) => p.name === known.name && p.in === known.in)) continue;
    found.push(known);
  }
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (name !== undefined && !found.some((p) => p.in === 'path' && p.name === name)) {
      found.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  if (route.auth !== undefined && route.auth.kind !== 'public') found.push(tenantHeader());
  if (route.idempotent) found.push(idempotencyHeader());
  return found;
}

function isReference(value: ParameterObject | ReferenceObject): value is ReferenceObject {
  return '$ref' in value;
}

function dtoParameters(input: BoundInput, context: DocumentContext): ParameterObject[] {
  const type = input.type as SchemaClass;
  const schema = classJsonSchema(type, { refPrefix: SCHEMA_PREFIX, onProblem: context.onProblem });
  const required = (schema['required'] ?? []) as string[];
  const defaults = new type() as Record<string, unknown>;
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: input.source === 'path' ? 'path' : 'query',
    required: input.source === 'path' || required.includes(name),
    schema: asSchema(defaults[name] === undefined ? property : { ...property, default: defaults[name] }),
  }));
}

function tenantHeader(): ParameterObject {
  return {
    name: TENANT_HEADER,
    in: 'header',
    required: false,
    description:
      'The operator key only: the tenant to act for (without it, reads span every tenant, creates are refused).',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
  };
}

function idempotencyHeader(): ParameterObject {
  return {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same body answers the first answer again and creates nothing; ' +
      'with another body, 422. Keys are kept per tenant and route for 24 h.',
    schema: asSchema({
      type: 'string',
      minLength: 1,
      maxLength: MAX_IDEMPOTENCY_KEY_CHARS,
      pattern: '^[\\x20-\\x7e]+$',
    }),
  };
}

function requestBody(route: DocumentedRoute, context: DocumentContext): RequestBodyObject | undefined {
  if (route.upload !== undefined) {
    const { field, mediaType, description, example } = route.upload;
    const form = {
      type: 'object',
      required: [field],
      properties: { [field]: { type: 'string', contentMediaType: mediaType, description } },
    };
    return {
      required: true,
      content: { 'multipart/form-data': { schema: asSchema(form), example: { [field]: example } } },
    };
  }
  const input = route.inputs.find((i) => i.source === 'body' && i.name === undefined);
  if (input === undefined || typeof input.type !== 'function') return undefined;
  const type = input.type as SchemaClass;
  const options = { refPrefix: SCHEMA_PREFIX, closed: true, onProblem: context.onProblem };
  for (const [name, schema] of classJsonSchemas([type], options)) context.schemas.set(name, schema);
  const example = apiExampleOf(type);
  return {
    required: true,
    content: {
      'application/json': {
        schema: { $ref: `${SCHEMA_PREFIX}${type.name}` },
        ...(example === undefined ? {} : { example }),
      },
    },
  };
}

function successResponse(
  route: DocumentedRoute,
  scanned: ResponseObject | ReferenceObject | undefined,
  schemas: Map<string, JsonSchema>,
): ResponseObject {
  const description = SUCCESS[route.status] ?? 'Success';
  const answer = route.answer;
  if (answer?.kind === 'json') {
    addView(answer.view, schemas);
    const content = { schema: { $ref: `${SCHEMA_PREFIX}${answer.view.name}` }, example: answer.view.example };
    return { description, content: { 'application/json': content } };
  }
  if (answer?.kind === 'file') {
    const content = { schema: { type: 'string' }, example: answer.example };
    return { description: `${description}: ${answer.description}`, content: { [answer.mediaType]: content } };
  }
  if (answer?.kind === 'events')
    return eventStreamResponse(description, answer.description, answer.events, schemas);
  return { ...(scanned !== undefined && !('$ref' in scanned) ? scanned : {}), description };
}

/** The media type of server-sent events. */
export const EVENT_STREAM_TYPE = 'text/event-stream';

/**
 * A stream of server-sent events. OpenAPI 3.1 has no schema for each event of a stream: the stream is a
 * string, and `x-events` names each event with the schema of its `data:` (JSON), which are components.
 */
function eventStreamResponse(
  status: string,
  description: string,
  events: readonly ApiEventSpec[],
  schemas: Map<string, JsonSchema>,
): ResponseObject {
  for (const event of events) addView(event.view, schemas);
  const example = events
    .map((event) => `event: ${event.name}\ndata: ${JSON.stringify(event.view.example)}\n\n`)
    .join('');
  const content = {
    schema: { type: 'string', description: 'Server-sent events; `: keep-alive` comments between them.' },
    example: `${example}: keep-alive\n\n`,
    'x-events': Object.fromEntries(
      events.map((event) => [event.name, { schema: { $ref: `${SCHEMA_PREFIX}${event.view.name}` } }]),
    ),
  };
  return { description: `${status}: ${description}`, content: { [EVENT_STREAM_TYPE]: content } };
}

function addView(view: ViewSchema, schemas: Map<string, JsonSchema>): void {
  if (schemas.has(view.name)) return;
  schemas.set(view.name, { ...view.schema });
  for (const used of view.uses) addView(used, schemas);
}
