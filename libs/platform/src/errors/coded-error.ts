/**
 * What kind of failure an error is. Edges map it to a status (HTTP 400/404/409/503, or a
 * dead letter versus a retry for Kafka); domain and service code never speak HTTP.
 */
export enum ErrorKind {
  Invalid = 'invalid',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not-found',
  Conflict = 'conflict',
  TooLarge = 'too-large',
  Unavailable = 'unavailable',
  Internal = 'internal',
}

/** One refused field of an input, named by its path (e.g. `schedule.cron`). */
export interface FieldError {
  readonly field: string;
  readonly reason: string;
}

/**
 * Base of our errors: a stable machine-readable code plus a message for people.
 * Domain code throws these; only HTTP edges translate them to status codes.
 */
export class CodedError extends Error {
  readonly kind: ErrorKind = ErrorKind.Internal;

  constructor(
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Input refused; `fields` names each offending field and why. */
export class InvalidInputError extends CodedError {
  override readonly kind = ErrorKind.Invalid;

  constructor(
    code: string,
    message: string,
    readonly fields: readonly FieldError[] = [],
    details?: Readonly<Record<string, unknown>>,
  ) {
    super(code, message, details);
  }

  /** One field, one reason: the common case. */
  static field(code: string, field: string, reason: string): InvalidInputError {
    return new InvalidInputError(code, `${field}: ${reason}`, [{ field, reason }]);
  }
}

/** No usable credential: missing, malformed, unknown, revoked or expired (HTTP 401). */
export class UnauthenticatedError extends CodedError {
  override readonly kind = ErrorKind.Unauthenticated;
}

/** A known principal that may not do this (HTTP 403). */
export class ForbiddenError extends CodedError {
  override readonly kind = ErrorKind.Forbidden;
}

export class NotFoundError extends CodedError {
  override readonly kind = ErrorKind.NotFound;
}

/** The request is valid but the current state refuses it (a transition not allowed, a duplicate). */
export class ConflictError extends CodedError {
  override readonly kind = ErrorKind.Conflict;
}

export class TooLargeError extends CodedError {
  override readonly kind = ErrorKind.TooLarge;
}

/** A dependency is down; the caller should retry later. */
export class UnavailableError extends CodedError {
  override readonly kind = ErrorKind.Unavailable;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function errorCode(error: unknown): string {
  return error instanceof CodedError ? error.code : 'UNEXPECTED';
}
