import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HttpErrorCode } from '@ums/contracts';
import { CodedError, ErrorKind, type FieldError, InvalidInputError } from '../errors/coded-error';
import { infrastructureFailure } from '../errors/infrastructure-error';

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
  [ErrorKind.Unprocessable]: 422,
  [ErrorKind.TooLarge]: 413,
  [ErrorKind.TooMany]: 429,
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
    const failure = status === 503 ? infrastructureFailure(exception) : undefined;
    if (failure !== undefined) {
      this.logger.warn({ err: exception, dependency: failure.dependency }, 'Dependency unavailable: 503');
    } else if (status >= 500) this.logger.error({ err: exception }, 'Request failed');
    if (status === 401) void reply.header('www-authenticate', 'Bearer');
    if (status === 503) void reply.header('retry-after', '1');
    void reply.status(status).send(body);
  }
}

/**
 * What a 5xx answer says: its code and a fixed text, never the error's own message (which may carry
 * a driver's or a broker's error text, a host or a query); the whole error goes to the service log.
 */
const SERVER_ERROR_MESSAGES: Readonly<Record<number, string>> = {
  500: 'Unexpected error; see the service log',
  503: 'Service unavailable; retry later',
};

function serverErrorMessage(status: number): string {
  return SERVER_ERROR_MESSAGES[status] ?? `Server error ${status}; see the service log`;
}

/** The code of a 503 answer caused by MySQL, Redis or Kafka being unavailable, slow or contended. */
export const DEPENDENCY_UNAVAILABLE = HttpErrorCode.DependencyUnavailable;

/**
 * The status and body answering `exception`: the one error shape, also used by fast routes. An
 * infrastructure failure (a lost connection, a deadlock, a broker timeout; see infrastructureFailure)
 * that no handler turned into a coded refusal answers 503 DEPENDENCY_UNAVAILABLE: the caller retries.
 */
export function describeError(exception: unknown): [number, ErrorBody] {
  const unexpected = !(exception instanceof CodedError) || exception.kind === ErrorKind.Internal;
  if (unexpected && !(exception instanceof HttpException) && infrastructureFailure(exception) !== undefined) {
    return [503, { error: { code: DEPENDENCY_UNAVAILABLE, message: serverErrorMessage(503) } }];
  }
  if (exception instanceof CodedError) {
    const status = STATUS_BY_KIND[exception.kind];
    const fields = exception instanceof InvalidInputError ? exception.fields : undefined;
    return [
      status,
      {
        error: {
          code: exception.code,
          message: status >= 500 ? serverErrorMessage(status) : exception.message,
          ...(fields && fields.length > 0 ? { fields } : {}),
          // Details are built for callers (an import id), so a 5xx keeps them.
          ...(exception.details ? { details: exception.details } : {}),
        },
      },
    ];
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = status === 404 ? HttpErrorCode.RouteNotFound : `HTTP_${status}`;
    return [
      status,
      { error: { code, message: status >= 500 ? serverErrorMessage(status) : exception.message } },
    ];
  }
  if (isFastifyError(exception)) {
    // Fastify's own refusals (body too large, bad content type, malformed JSON) keep their status.
    const status = exception.statusCode;
    return [
      status,
      {
        error: {
          code: exception.code ?? `HTTP_${status}`,
          message: status >= 500 ? serverErrorMessage(status) : exception.message,
        },
      },
    ];
  }
  return [500, { error: { code: HttpErrorCode.Unexpected, message: serverErrorMessage(500) } }];
}
