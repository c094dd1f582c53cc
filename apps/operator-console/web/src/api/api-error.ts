/** One invalid field of a 400 answer. */
export interface ApiFieldError {
  readonly field: string;
  readonly reason: string;
}

/** The code of an error raised in the browser when no answer came (connection refused, offline). */
export const NETWORK_ERROR = 'NETWORK_ERROR';

/**
 * An API refusal as the console shows it: the HTTP status, the service's code and message, the fields
 * a 400 names, and its details (a 403 names the scope it needs). Status 0: no answer came.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: readonly ApiFieldError[];
  readonly details: Readonly<Record<string, unknown>>;

  constructor(options: {
    status: number;
    code: string;
    message: string;
    fields?: readonly ApiFieldError[];
    details?: Readonly<Record<string, unknown>>;
  }) {
    super(options.message);
    this.name = 'ApiError';
    this.status = options.status;
    this.code = options.code;
    this.fields = options.fields ?? [];
    this.details = options.details ?? {};
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldsOf(value: unknown): ApiFieldError[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown): ApiFieldError[] =>
    isRecord(entry) && typeof entry['field'] === 'string'
      ? [{ field: entry['field'], reason: typeof entry['reason'] === 'string' ? entry['reason'] : '' }]
      : [],
  );
}

/**
 * The error of a non-2xx answer: the service's `{error: {code, message, fields?, details?}}` when the body
 * is one, else `HTTP_<status>` with the start of the body (a proxy's page) or the status as message.
 */
export function parseApiError(status: number, text: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error = isRecord(parsed) ? parsed['error'] : undefined;
  if (isRecord(error) && typeof error['code'] === 'string') {
    const details = error['details'];
    return new ApiError({
      status,
      code: error['code'],
      message: typeof error['message'] === 'string' ? error['message'] : '',
      fields: fieldsOf(error['fields']),
      ...(isRecord(details) ? { details } : {}),
    });
  }
  const snippet = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  return new ApiError({
    status,
    code: `HTTP_${status}`,
    message: snippet === '' ? `The service answered HTTP ${status}` : snippet,
  });
}

/** Whatever a call threw, as an ApiError: a network failure becomes status 0 with NETWORK_ERROR. */
export function toApiError(thrown: unknown): ApiError {
  if (thrown instanceof ApiError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new ApiError({ status: 0, code: NETWORK_ERROR, message: `No answer from the server: ${message}` });
}

/** The scope a 403 names (details.scope, or "needs the X scope" in its message), if any. */
export function missingScope(error: ApiError): string | undefined {
  const scope = error.details['scope'];
  if (typeof scope === 'string') return scope;
  return /needs the ([a-z-]+:[a-z]+) scope/.exec(error.message)?.[1];
}

/** Whether the error is the browser aborting the call (a page left, a stream closed). */
export function isAbort(thrown: unknown): boolean {
  return typeof thrown === 'object' && thrown !== null && 'name' in thrown && thrown.name === 'AbortError';
}
