/** The code of an error answer whose 2xx body is not the JSON the document promises. */
export const BAD_RESPONSE = 'BAD_RESPONSE';

export interface ApiFieldError {
  readonly field: string;
  readonly reason: string;
}

export interface UmsApiErrorOptions {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly fields?: readonly ApiFieldError[];
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * A UMS service answered, refusing: its `{error: {code, message, fields?, details?}}` with the HTTP
 * status. An answer that is not such a body (a proxy's 502 page) has the code `HTTP_<status>`.
 */
export class UmsApiError extends Error {
  readonly status: number;
  /** The service's code (docs/error-codes.md), `HTTP_<status>`, or BAD_RESPONSE. */
  readonly code: string;
  /** The fields a 400 names, with the reason of each. */
  readonly fields: readonly ApiFieldError[];
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(options: UmsApiErrorOptions) {
    super(options.message);
    this.name = 'UmsApiError';
    this.status = options.status;
    this.code = options.code;
    this.fields = options.fields ?? [];
    this.details = options.details;
  }
}

export interface UmsNetworkErrorOptions {
  /** What fetch threw. */
  readonly cause: unknown;
  readonly service: string;
  readonly baseUrl: string;
  /** The timeout the request had, if any. */
  readonly timeoutMs?: number;
}

/**
 * No answer came: the connection was refused or reset, the host is unknown, or the request timed out
 * or was aborted. `cause` is what fetch threw; `code` is `TIMEOUT`, `ABORTED`, the socket's code
 * (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...) or `NETWORK_ERROR`.
 */
export class UmsNetworkError extends Error {
  readonly code: string;
  readonly service: string;
  readonly baseUrl: string;
  readonly timeoutMs: number | undefined;

  constructor(options: UmsNetworkErrorOptions) {
    const code = networkCode(options.cause);
    const within = options.timeoutMs === undefined ? '' : ` within ${options.timeoutMs} ms`;
    super(
      code === 'TIMEOUT'
        ? `${options.service} at ${options.baseUrl} did not answer${within}`
        : `cannot connect to ${options.service} at ${options.baseUrl} (${code})`,
      { cause: options.cause },
    );
    this.name = 'UmsNetworkError';
    this.code = code;
    this.service = options.service;
    this.baseUrl = options.baseUrl;
    this.timeoutMs = options.timeoutMs;
  }
}

function networkCode(error: unknown): string {
  // Duck-typed: fetch's DOMException and TypeError may come from another realm (Jest).
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  if (name === 'TimeoutError') return 'TIMEOUT';
  if (name === 'AbortError') return 'ABORTED';
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if ('code' in current && typeof current.code === 'string') return current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return 'NETWORK_ERROR';
}

function fieldsOf(value: unknown): ApiFieldError[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((f: unknown): ApiFieldError[] =>
    typeof f === 'object' && f !== null && 'field' in f
      ? [{ field: String(f.field), reason: 'reason' in f ? String(f.reason) : '' }]
      : [],
  );
}

/** The error of a non-2xx answer: the service's `{error: {...}}` when it sent one, else the status. */
export function errorFromAnswer(status: number, text: string): UmsApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error =
    typeof parsed === 'object' && parsed !== null && 'error' in parsed
      ? (parsed.error as unknown)
      : undefined;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    const record = error as Record<string, unknown>;
    const details = record['details'];
    return new UmsApiError({
      status,
      code: error.code,
      message: String(record['message'] ?? ''),
      fields: fieldsOf(record['fields']),
      ...(typeof details === 'object' && details !== null
        ? { details: details as Record<string, unknown> }
        : {}),
    });
  }
  const snippet = text.trim().slice(0, 200);
  return new UmsApiError({
    status,
    code: `HTTP_${status}`,
    message: snippet === '' ? `the service answered ${status}` : snippet,
  });
}
