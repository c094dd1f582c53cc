/** Process exit codes of the CLI; scripts rely on them. */
export enum ExitCode {
  Ok = 0,
  /** The API answered with an error (4xx/5xx): its code and message are printed. */
  Remote = 1,
  /** The command line was wrong (unknown command or option, missing or invalid value, unreadable file). */
  Usage = 2,
  /** The service could not be reached (refused, unknown host, no answer in time). */
  Unreachable = 3,
}

/**
 * The CLI's own codes (the `code` of a `--json` error), for failures that are not a service's answer;
 * an API refusal keeps the service's code (ErrorCode of libs/contracts). Local to the CLI: a client's
 * codes, never raised by or sent to a service, so not in the services' catalogue.
 */
export enum CliErrorCode {
  /** The command line was wrong: an unknown command or option, a missing or invalid value (exit 2). */
  Usage = 'USAGE',
  /** The service did not answer within the timeout (exit 3). */
  Timeout = 'TIMEOUT',
  /** The connection failed without a socket code of its own (exit 3). */
  ConnectFailed = 'CONNECT_FAILED',
  /** The service answered a body that is not JSON (exit 1). */
  BadResponse = 'BAD_RESPONSE',
  /** An error the CLI did not expect: a bug in it (exit 1). */
  Internal = 'CLI_INTERNAL',
}

export interface ApiFieldError {
  readonly field: string;
  readonly reason: string;
}

/** Every error the CLI expects carries a code and an exit code; anything else is a bug and shows its stack. */
export abstract class CliError extends Error {
  abstract readonly exitCode: ExitCode;
  abstract readonly code: string;
}

export class UsageError extends CliError {
  readonly exitCode = ExitCode.Usage;
  readonly code = CliErrorCode.Usage;

  constructor(
    message: string,
    /** The usage line of the command, shown under the message. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An error answer of a UMS service: `{error: {code, message, fields?, details?}}` with its HTTP status. */
export class ApiError extends CliError {
  readonly exitCode = ExitCode.Remote;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: readonly ApiFieldError[] = [],
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class UnreachableError extends CliError {
  readonly exitCode = ExitCode.Unreachable;

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnreachableError';
  }
}
