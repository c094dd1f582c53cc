import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { hasLoneSurrogate } from '@ums/domain';
import { HttpErrorCode } from '@ums/contracts';
import { InvalidInputError } from '../errors/coded-error';

export const JSON_MEDIA_TYPE = 'application/json';
/** Deepest nesting of objects and arrays a JSON body may have (the DTOs need four levels). */
export const MAX_JSON_DEPTH = 32;

const UTF8_CHARSET = /^"?utf-?8"?$/i;
// Bodies that may hold a prototype key (also written with \u escapes) are walked; others are not.
const PROTOTYPE_HINT = /__proto__|constructor|\\u/;
const POSITION = /position (\d+)/;

/**
 * 415: the request's body is of a media type the route does not read. Answered by the error filter
 * as `{error: {code: 'UNSUPPORTED_MEDIA_TYPE', message}}` with the status it carries, as the
 * framework's own refusals are; the message names the type expected.
 */
export class UnsupportedMediaTypeError extends Error {
  readonly statusCode = 415;
  readonly code = HttpErrorCode.UnsupportedMediaType;

  constructor(received: string | undefined, expected: string) {
    super(
      `${received === undefined ? 'A body without a Content-Type' : `Content-Type ${received}`} is not ` +
        `accepted here: send ${expected}`,
    );
    this.name = 'UnsupportedMediaTypeError';
  }
}

export interface MediaType {
  /** Type and subtype, lower case, without parameters (`application/json`). */
  readonly type: string;
  readonly charset: string | undefined;
}

/** The media type of a Content-Type header, or undefined without one. */
export function mediaTypeOf(header: string | undefined): MediaType | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const [type = '', ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset') charset = value.trim();
  }
  return { type: type.trim().toLowerCase(), charset };
}

/** True when the request carries a body (a length above zero, or chunked). */
export function hasRequestBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function bodyInvalid(field: string, reason: string): InvalidInputError {
  return InvalidInputError.field(HttpErrorCode.BodyInvalid, field, reason);
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** The path of the first `__proto__` key or `constructor.prototype` pair in a parsed value. */
function findPrototypeKey(root: unknown): string | undefined {
  const stack: [unknown, string][] = [[root, '']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, path] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      value.forEach((element, index) => stack.push([element, childPath(path, index)]));
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const at = childPath(path, key);
      if (key === '__proto__') return at;
      if (
        key === 'constructor' &&
        typeof child === 'object' &&
        child !== null &&
        Object.hasOwn(child, 'prototype')
      ) {
        return childPath(at, 'prototype');
      }
      stack.push([child, at]);
    }
  }
  return undefined;
}

/**
 * Parses a JSON body: UTF-8 (RFC 8259), a byte-order mark ignored, no `__proto__` or
 * `constructor.prototype` keys. Refusals are 400 BODY_INVALID naming the body or the key; a
 * syntax error gives its position, never the text (a body may hold a secret).
 */
export function parseJsonBody(body: Buffer): unknown {
  if (!isUtf8(body)) throw bodyInvalid('body', 'is not valid UTF-8');
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') throw bodyInvalid('body', 'is empty: send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error: unknown) {
    const position = error instanceof Error ? POSITION.exec(error.message)?.[1] : undefined;
    throw bodyInvalid(
      'body',
      `is not valid JSON${position === undefined ? '' : ` (at position ${position})`}`,
    );
  }
  const key = PROTOTYPE_HINT.test(text) ? findPrototypeKey(value) : undefined;
  if (key !== undefined)
    throw bodyInvalid(key, 'a "__proto__" or "constructor.prototype" key is not accepted');
  return value;
}

/**
 * What a DTO-bound body must be before the validation pipe sees it: a JSON object, at most
 * MAX_JSON_DEPTH deep (the pipe recurses: a deeper body overflowed the stack, a 500), its keys and
 * strings well-formed Unicode (a lone surrogate cannot be stored: MySQL refused it, a 500, or it
 * became U+FFFD). Throws 400 VALIDATION_FAILED naming the first offending field.
 */
export function checkJsonBodyShape(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw InvalidInputError.field(HttpErrorCode.ValidationFailed, 'body', 'must be a JSON object');
  }
  const stack: [unknown, string, number][] = [[body, '', 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, path, depth] = item;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) {
        throw InvalidInputError.field(
          HttpErrorCode.ValidationFailed,
          path,
          'is not well-formed Unicode (a lone surrogate)',
        );
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      throw InvalidInputError.field(
        HttpErrorCode.ValidationFailed,
        path,
        `nests deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    if (Array.isArray(value)) {
      value.forEach((element, index) => stack.push([element, childPath(path, index), depth + 1]));
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (hasLoneSurrogate(key)) {
        throw InvalidInputError.field(
          HttpErrorCode.ValidationFailed,
          path === '' ? 'body' : path,
          'has a key that is not well-formed Unicode',
        );
      }
      stack.push([child, childPath(path, key), depth + 1]);
    }
  }
}

/** A route's body, bound with `@Body()`, must come as JSON: anything else is 415 before validation. */
export function checkJsonRequest(headers: IncomingHttpHeaders, body: unknown): void {
  const media = mediaTypeOf(headers['content-type']);
  if (media === undefined) {
    // No body at all: the validation pipe names the missing fields.
    if (hasRequestBody(headers)) throw new UnsupportedMediaTypeError(undefined, JSON_MEDIA_TYPE);
    return;
  }
  if (media.type !== JSON_MEDIA_TYPE) throw new UnsupportedMediaTypeError(media.type, JSON_MEDIA_TYPE);
  if (media.charset !== undefined && !UTF8_CHARSET.test(media.charset)) {
    throw new UnsupportedMediaTypeError(
      `${media.type}; charset=${media.charset}`,
      `${JSON_MEDIA_TYPE} in UTF-8`,
    );
  }
  checkJsonBodyShape(body);
}

/** Runs checkJsonRequest for every handler that binds a `@Body()`; other routes read what they need. */
class JsonBodyInterceptor implements NestInterceptor {
  private readonly takesBody = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http' && this.bindsBody(context)) {
      const request = context.switchToHttp().getRequest<FastifyRequest>();
      checkJsonRequest(request.headers, request.body);
    }
    return next.handle();
  }

  private bindsBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let binds = this.takesBody.get(handler);
    if (binds === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ??
        {}) as object;
      binds = Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.BODY}:`));
      this.takesBody.set(handler, binds);
    }
    return binds;
  }
}

/**
 * The JSON body policy of every service: JSON bodies parsed by parseJsonBody, a body of a media type
 * no parser reads refused with 415 UNSUPPORTED_MEDIA_TYPE (rather than Fastify's anonymous 415),
 * and routes binding a `@Body()` DTO checked by checkJsonRequest (a text/plain, form or multipart
 * body there is 415, not a list of every field). Multipart uploads and form routes, which read the
 * request themselves, are untouched. Call before the application is initialized.
 */
export function applyJsonBodyPolicy(app: NestFastifyApplication): void {
  const adapter = app.getHttpAdapter() as unknown as FastifyAdapter;
  // Nest's own parsers (JSON and forms) now, so that init() leaves them, then its JSON one replaced.
  adapter.registerParserMiddleware();
  const fastify = adapter.getInstance();
  fastify.removeContentTypeParser(JSON_MEDIA_TYPE);
  fastify.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error: unknown) {
      done(error as Error, undefined);
    }
  });
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    const media = mediaTypeOf(request.headers['content-type']);
    done(
      new UnsupportedMediaTypeError(media?.type, `${JSON_MEDIA_TYPE} (file uploads: multipart/form-data)`),
      undefined,
    );
  });
  app.useGlobalInterceptors(new JsonBodyInterceptor());
}
