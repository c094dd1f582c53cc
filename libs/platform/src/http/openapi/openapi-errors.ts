import type { ResponseObject } from '@nestjs/swagger';
import { AuthErrorCode, HttpErrorCode, IdempotencyErrorCode } from '@ums/contracts';
import type { JsonSchema } from '../../json-schema/class-json-schema';
import { UnavailableError } from '../../errors/coded-error';
import { describeError, type ErrorBody } from '../error-response.filter';
import { createValidationPipe } from '../validation.pipe';
import type { BoundInput, DocumentedRoute } from './openapi-routes';
import { apiExampleOf } from './openapi.decorators';

/**
 * What a framework route answers for a body past the service's limit: Fastify's refusal reaches the error
 * filter as Nest's 413 exception, answered `HTTP_413` (fast routes answer BODY_TOO_LARGE).
 */
export const BODY_TOO_LARGE_CODE = 'HTTP_413';

/** Every AuthErrorCode but the 403 and 503 ones: why a request without a usable credential is refused (401). */
const NOT_401: readonly string[] = [
  AuthErrorCode.ScopeMissing,
  AuthErrorCode.TenantHeaderForbidden,
  AuthErrorCode.JwksUnavailable,
];
const UNAUTHENTICATED: readonly string[] = Object.values(AuthErrorCode).filter(
  (code) => !NOT_401.includes(code),
);

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Content too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  503: 'Service unavailable',
};

/** The components every error response refers to. */
export const ERROR_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  FieldError: {
    type: 'object',
    required: ['field', 'reason'],
    properties: { field: { type: 'string' }, reason: { type: 'string' } },
  },
  ErrorBody: {
    type: 'object',
    description: 'Every error answer; the codes are those of docs/error-codes.md.',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          fields: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
          details: { type: 'object' },
        },
      },
    },
  },
};

/** The error codes a route may answer, by status: the common ones for what it binds, and its own. */
export function errorCodesOf(route: DocumentedRoute): Map<number, Set<string>> {
  const codes = new Map<number, Set<string>>();
  const add = (status: number, ...list: readonly string[]): void => {
    const set = codes.get(status) ?? new Set<string>();
    for (const code of list) set.add(code);
    codes.set(status, set);
  };
  if (route.auth !== undefined && route.auth.kind !== 'public') {
    add(400, HttpErrorCode.TenantInvalid);
    add(401, ...UNAUTHENTICATED);
    if (route.auth.kind === 'scope') add(403, AuthErrorCode.ScopeMissing);
    add(403, AuthErrorCode.TenantHeaderForbidden);
    add(503, AuthErrorCode.JwksUnavailable);
  }
  if (route.inputs.some(validated)) add(400, HttpErrorCode.ValidationFailed);
  if (route.inputs.some((input) => input.source === 'body')) {
    add(400, HttpErrorCode.BodyInvalid);
    add(413, BODY_TOO_LARGE_CODE);
    add(415, HttpErrorCode.UnsupportedMediaType);
  }
  if (route.upload !== undefined) add(415, HttpErrorCode.UnsupportedMediaType);
  if (route.idempotent) {
    add(400, IdempotencyErrorCode.KeyInvalid);
    add(409, IdempotencyErrorCode.KeyInProgress);
    add(422, IdempotencyErrorCode.KeyReused);
  }
  for (const [status, list] of Object.entries(route.errors)) add(Number(status), ...(list ?? []));
  add(503, HttpErrorCode.DependencyUnavailable);
  return new Map([...codes.entries()].sort(([a], [b]) => a - b));
}

/** A bound input the validation pipe checks: a DTO class (not a plain string or object). */
function validated(input: BoundInput): boolean {
  return typeof input.type === 'function' && input.type !== String && input.type !== Object;
}

/** The error responses of a route, each with its codes and an example answer per code. */
export async function errorResponses(route: DocumentedRoute): Promise<Record<string, ResponseObject>> {
  const responses: Record<string, ResponseObject> = {};
  const validation = await validationExample(route);
  for (const [status, codes] of errorCodesOf(route)) {
    const list = [...codes];
    const examples = Object.fromEntries(
      list.map((code) => [code, { value: exampleBody(route, status, code, validation) }]),
    );
    responses[String(status)] = {
      description: `${REASONS[status] ?? 'Error'}: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      ...(status === 401
        ? { headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } } }
        : {}),
      ...(status === 503
        ? {
            headers: {
              'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
            },
          }
        : {}),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/ErrorBody' },
              {
                type: 'object',
                properties: { error: { type: 'object', properties: { code: { enum: list } } } },
              },
            ],
          },
          examples,
        },
      },
    } as ResponseObject;
  }
  return responses;
}

function exampleBody(
  route: DocumentedRoute,
  status: number,
  code: string,
  validation: ErrorBody | undefined,
): ErrorBody {
  if (code === HttpErrorCode.ValidationFailed && validation !== undefined) return validation;
  // A 5xx answer carries a fixed text, never the error's own (see describeError).
  if (status >= 500)
    return {
      error: {
        code,
        message: describeError(new UnavailableError(HttpErrorCode.DependencyUnavailable, ''))[1].error
          .message,
      },
    };
  if (code === AuthErrorCode.ScopeMissing && route.auth?.kind === 'scope') {
    const scope = route.auth.scope;
    return { error: { code, message: `This route needs the ${scope} scope`, details: { scope } } };
  }
  const words = code.toLowerCase().replace(/_/g, ' ');
  return { error: { code, message: `${words.charAt(0).toUpperCase()}${words.slice(1)}` } };
}

/**
 * What the validation pipe answers for the route's first DTO given a field it does not know (added to
 * the body's example), or nothing: the real answer, built by the pipe and the error filter.
 */
async function validationExample(route: DocumentedRoute): Promise<ErrorBody | undefined> {
  const input = route.inputs.find(validated);
  if (input === undefined) return undefined;
  const pipe = createValidationPipe();
  const type = input.source === 'path' ? 'param' : input.source === 'header' ? 'custom' : input.source;
  const candidates =
    input.source === 'path'
      ? [{}]
      : [{ ...(apiExampleOf(input.type) ?? {}), unexpected: 'x' }, { unexpected: 'x' }, {}];
  for (const candidate of candidates) {
    try {
      await pipe.transform(candidate, { type, metatype: input.type as new () => object });
    } catch (error: unknown) {
      const [, body] = describeError(error);
      if (body.error.code !== HttpErrorCode.ValidationFailed) throw error;
      return body;
    }
  }
  return undefined;
}
