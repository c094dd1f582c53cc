import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CodedError, ErrorKind, type FieldError, InvalidInputError } from '../errors/coded-error';

/** The body of every error answer: `{ error: { code, message, fields? } }`. */
export interface ErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly fields?: readonly FieldError[];
    readonly details?: Readonly<Record<string, unknown>>;
  };
}

const STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  [ErrorKind.Invalid]: 400,
  [ErrorKind.Unauthenticated]: 401,
  [ErrorKind.Forbidden]: 403,
  [ErrorKind.NotFound]: 404,
  [ErrorKind.Conflict]: 409,
  [ErrorKind.TooLarge]: 413,
  [ErrorKind.Unavailable]: 503,
  [ErrorKind.Internal]: 500,
};

interface FastifyLikeError {
  readonly statusCode: number;
  readonly code?: string;
  readonly message: string;
}

function isFastifyError(error: unknown): error is FastifyLikeError {
  if (!(error instanceof Error)) return false;
  const statusCode: unknown = (error as Error & { statusCode?: unknown }).statusCode;
  return typeof statusCode === 'number' && statusCode >= 400;
}

/** Translates coded errors (and framework errors) into one JSON error shape; nothing else speaks HTTP. */
@Catch()
export class ErrorResponseFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const [status, body] = describeError(exception);
    if (status >= 500) this.logger.error({ err: exception }, 'Request failed');
    if (status === 401) void reply.header('www-authenticate', 'Bearer');
    void reply.status(status).send(body);
  }
}

/** The status and body answering `exception`: the one error shape, also used by fast routes. */
export function describeError(exception: unknown): [number, ErrorBody] {
  if (exception instanceof CodedError) {
    const fields = exception instanceof InvalidInputError ? exception.fields : undefined;
    return [
      STATUS_BY_KIND[exception.kind],
      {
        error: {
          code: exception.code,
          message: exception.message,
          ...(fields && fields.length > 0 ? { fields } : {}),
          ...(exception.details ? { details: exception.details } : {}),
        },
      },
    ];
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = status === 404 ? 'ROUTE_NOT_FOUND' : `HTTP_${status}`;
    return [status, { error: { code, message: exception.message } }];
  }
  if (isFastifyError(exception)) {
    // Fastify's own refusals (body too large, bad content type, malformed JSON) keep their status.
    return [
      exception.statusCode,
      { error: { code: exception.code ?? `HTTP_${exception.statusCode}`, message: exception.message } },
    ];
  }
  return [500, { error: { code: 'UNEXPECTED', message: 'Unexpected error; see the service log' } }];
}
