import { UmsApiError, UmsNetworkError } from '@ums/client';
import { ApiError, CliErrorCode, UnreachableError, UsageError } from './cli.errors';

/** The fetch the CLI is handed (the process's, or a test's); the typed client calls it. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Network failure codes that mean "the service is not there" (exit 3). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** A base URL given by flag or environment: http(s), no trailing slash. */
export function normalizeBaseUrl(raw: string, label: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${label} must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${label} must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return url.toString().replace(/\/+$/, '');
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if ('code' in current && typeof current.code === 'string' && UNREACHABLE_CODES.has(current.code)) {
      return current.code;
    }
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

/** Turns what fetch threw into an UnreachableError (exit 3); anything else is rethrown as it is. */
export function connectionError(error: unknown, service: string, url: string, timeoutMs?: number): Error {
  // Duck-typed: fetch's DOMException and TypeError may come from another realm (Jest).
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    const within = timeoutMs === undefined ? '' : ` within ${timeoutMs} ms`;
    return new UnreachableError(CliErrorCode.Timeout, `${service} at ${url} did not answer${within}`);
  }
  const code = causeCode(error);
  if (code !== undefined)
    return new UnreachableError(code, `cannot connect to ${service} at ${url} (${code})`);
  if (
    name === 'TypeError' &&
    typeof error === 'object' &&
    error !== null &&
    'message' in error &&
    error.message === 'fetch failed'
  ) {
    const causeMessage =
      'cause' in error && typeof error.cause === 'object' && error.cause !== null && 'message' in error.cause
        ? String(error.cause.message)
        : '';
    const cause = causeMessage === '' ? '' : ` (${causeMessage})`;
    return new UnreachableError(CliErrorCode.ConnectFailed, `cannot connect to ${service} at ${url}${cause}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The CLI's error for what the typed client threw: a refusal is an ApiError (exit 1), no answer an
 * UnreachableError (exit 3); anything else stays as it is.
 */
export function cliErrorOf(error: unknown): unknown {
  if (error instanceof UmsApiError) {
    return new ApiError(error.status, error.code, error.message, error.fields, error.details);
  }
  if (error instanceof UmsNetworkError) {
    return connectionError(error.cause, error.service, error.baseUrl, error.timeoutMs);
  }
  return error;
}

/** What a request carries to say who calls: an API key (bearer) and, for operator keys, a tenant. */
export interface CallerCredential {
  readonly apiKey?: string;
  /** Where the key came from, for messages: `--api-key` or `UMS_API_KEY`. */
  readonly apiKeySource?: string;
  readonly tenant?: string;
  readonly tenantSource?: string;
}

// Visible ASCII only: anything else could not travel in a header, and fetch's own error would repeat it.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * The key and tenant of a caller, checked before anything is sent: one that cannot travel in a header
 * is a usage error that names where it came from, never the key itself.
 */
export function checkedCaller(caller: CallerCredential): { apiKey?: string; tenant?: string } {
  if (caller.apiKey !== undefined && !HEADER_SAFE.test(caller.apiKey)) {
    throw new UsageError(
      `the API key of ${caller.apiKeySource ?? '--api-key'} must be visible ASCII characters without spaces`,
    );
  }
  if (caller.tenant !== undefined && !HEADER_SAFE.test(caller.tenant)) {
    throw new UsageError(
      `${caller.tenantSource ?? '--tenant'} must be visible ASCII characters without spaces, got ${JSON.stringify(caller.tenant)}`,
    );
  }
  return {
    ...(caller.apiKey === undefined ? {} : { apiKey: caller.apiKey }),
    ...(caller.tenant === undefined ? {} : { tenant: caller.tenant }),
  };
}

/**
 * A value from the command line for a field the API takes from a list (a channel, a provider, a
 * country): sent as it is, for the service to check; its refusal names the field (exit 1).
 */
export function serviceChecked<T extends string>(value: string): T;
export function serviceChecked<T extends string>(value: string | undefined): T | undefined;
export function serviceChecked<T extends string>(value: string | undefined): T | undefined {
  return value as T | undefined;
}
