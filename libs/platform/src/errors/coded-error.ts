/**
 * Base of our errors: a stable machine-readable code plus a message for people.
 * Domain code throws these; only HTTP edges translate them to status codes.
 */
export class CodedError extends Error {
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

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function errorCode(error: unknown): string {
  return error instanceof CodedError ? error.code : 'UNEXPECTED';
}
