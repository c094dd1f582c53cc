import { type ErrorCode, HttpErrorCode } from '@ums/contracts';

/**
 * What kind of failure an error is. Edges map it to a status (HTTP 400/404/409/422/429/503, or a
 * dead letter versus a retry for Kafka); domain and service code never speak HTTP.
 */
export enum ErrorKind {
  Invalid = 'invalid',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not-found',
  Conflict = 'conflict',
  /** Well-formed, but not acceptable as it stands (an idempotency key reused with another body). */
  Unprocessable = 'unprocessable',
  TooLarge = 'too-large',
  /** The caller holds as much of a limited resource as it may (HTTP 429): release some, then retry. */
  TooMany = 'too-many',
  Unavailable = 'unavailable',
  Internal = 'internal',
}

/** One refused field of an input, named by its path (e.g. `schedule.cron`). */
export interface FieldError {
  readonly field: string;
  readonly reason: string;
}

/**
 * Base of our errors: a stable machine-readable code of the catalogue (ErrorCode, libs/contracts)
 * plus a message for people. Domain code throws these; only HTTP edges translate them to status codes.
 * `C` stays ErrorCode everywhere but in the provider simulator, which names its own local codes
 * explicitly (`new ConflictError<SimulatorErrorCode>(...)`); it is never inferred from a literal.
 */
export class CodedError<C extends string = ErrorCode> extends Error {
  readonly kind: ErrorKind = ErrorKind.Internal;

  constructor(
    readonly code: NoInfer<C>,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Input refused; `fields` names each offending field and why. */
export class InvalidInputError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.Invalid;

  constructor(
    code: NoInfer<C>,
    message: string,
    readonly fields: readonly FieldError[] = [],
    details?: Readonly<Record<string, unknown>>,
  ) {
    super(code, message, details);
  }

  /** One field, one reason: the common case. */
  static field<C extends string = ErrorCode>(
    code: NoInfer<C>,
    field: string,
    reason: string,
  ): InvalidInputError<C> {
    return new InvalidInputError<C>(code, `${field}: ${reason}`, [{ field, reason }]);
  }
}

/** No usable credential: missing, malformed, unknown, revoked or expired (HTTP 401). */
export class UnauthenticatedError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.Unauthenticated;
}

/** A known principal that may not do this (HTTP 403). */
export class ForbiddenError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.Forbidden;
}

export class NotFoundError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.NotFound;
}

/** The request is valid but the current state refuses it (a transition not allowed, a duplicate). */
export class ConflictError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.Conflict;
}

/** The request is well-formed but cannot be processed as it is (HTTP 422). */
export class UnprocessableError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.Unprocessable;
}

export class TooLargeError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.TooLarge;
}

/** The caller (or every caller together) holds as much of a limited resource as allowed (HTTP 429). */
export class TooManyError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.TooMany;
}

/** A dependency is down; the caller should retry later. */
export class UnavailableError<C extends string = ErrorCode> extends CodedError<C> {
  override readonly kind = ErrorKind.Unavailable;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The catalogue code of one of our errors; UNEXPECTED for anything else (a bug, a library's error). */
export function errorCode(error: unknown): ErrorCode {
  return error instanceof CodedError ? (error as CodedError).code : HttpErrorCode.Unexpected;
}
