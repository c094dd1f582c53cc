import { randomBytes } from 'node:crypto';
import { ApiError, type ApiFieldError, CliErrorCode, UnreachableError, UsageError } from './cli.errors';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type QueryValue = string | number | undefined;

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

/** `?a=1&b=x` from the defined values, or '' when there are none. */
export function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The error of a non-2xx answer: the service's `{error: {...}}` when it sent one, else the status. */
export function errorFromAnswer(status: number, text: string): ApiError {
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
    const fields = Array.isArray(record['fields'])
      ? (record['fields'] as unknown[]).flatMap((f): ApiFieldError[] =>
          typeof f === 'object' && f !== null && 'field' in f
            ? [{ field: String(f.field), reason: 'reason' in f ? String(f.reason) : '' }]
            : [],
        )
      : [];
    const details =
      typeof record['details'] === 'object' && record['details'] !== null
        ? (record['details'] as Record<string, unknown>)
        : undefined;
    return new ApiError(status, error.code, String(record['message'] ?? ''), fields, details);
  }
  const snippet = text.trim().slice(0, 200);
  return new ApiError(status, `HTTP_${status}`, snippet === '' ? `the service answered ${status}` : snippet);
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

/** Turns what fetch throws into an UnreachableError (exit 3); anything else is rethrown as it is. */
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
 * The `authorization` and `x-ums-tenant` headers of a caller. A key that cannot be sent is a usage
 * error that names where it came from, never the key itself.
 */
export function credentialHeaders(caller: CallerCredential): Record<string, string> {
  const headers: Record<string, string> = {};
  if (caller.apiKey !== undefined) {
    if (!HEADER_SAFE.test(caller.apiKey)) {
      throw new UsageError(
        `the API key of ${caller.apiKeySource ?? '--api-key'} must be visible ASCII characters without spaces`,
      );
    }
    headers['authorization'] = `Bearer ${caller.apiKey}`;
  }
  if (caller.tenant !== undefined) {
    if (!HEADER_SAFE.test(caller.tenant)) {
      throw new UsageError(
        `${caller.tenantSource ?? '--tenant'} must be visible ASCII characters without spaces, got ${JSON.stringify(caller.tenant)}`,
      );
    }
    headers['x-ums-tenant'] = caller.tenant;
  }
  return headers;
}

export interface UploadFile {
  readonly fileName: string;
  readonly contentType: string;
  readonly chunks: AsyncIterable<Uint8Array>;
}

export interface ApiClientOptions {
  /** http(s) URL without a trailing slash. */
  readonly baseUrl: string;
  /** How errors name the service, e.g. "the campaign API". */
  readonly service: string;
  readonly fetch: FetchLike;
  /** Requests other than uploads are cut after this. */
  readonly timeoutMs: number;
  /** Sent with every request: `authorization` and `x-ums-tenant` (see credentialHeaders). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One UMS service over HTTP. Errors: ApiError (the service refused), UnreachableError (no answer).
 * Requests other than uploads are cut after `timeoutMs`.
 */
export class ApiClient {
  readonly baseUrl: string;
  readonly service: string;
  private readonly fetchFn: FetchLike;
  private readonly timeoutMs: number;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl;
    this.service = options.service;
    this.fetchFn = options.fetch;
    this.timeoutMs = options.timeoutMs;
    this.headers = options.headers ?? {};
  }

  get<T>(path: string, query: Readonly<Record<string, QueryValue>> = {}): Promise<T> {
    return this.request<T>('GET', `${path}${queryString(query)}`);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /**
   * A multipart/form-data upload of one file field, streamed (the file is never held in memory);
   * the answer arrives once the service has consumed the whole body.
   */
  async upload<T>(path: string, field: string, file: UploadFile): Promise<T> {
    const boundary = `----ums-cli-${randomBytes(12).toString('hex')}`;
    const encoder = new TextEncoder();
    const safeName = file.fileName.replace(/["\r\n]/g, '_');
    async function* body(): AsyncGenerator<Uint8Array> {
      yield encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${safeName}"\r\n` +
          `Content-Type: ${file.contentType}\r\n\r\n`,
      );
      for await (const chunk of file.chunks) yield chunk;
      yield encoder.encode(`\r\n--${boundary}--\r\n`);
    }
    return this.send<T>(
      'POST',
      path,
      {
        method: 'POST',
        headers: { ...this.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: body(),
        duplex: 'half',
      },
      undefined,
    );
  }

  private request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = {
      method,
      headers: {
        ...this.headers,
        ...(body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    };
    return this.send<T>(method, path, init, this.timeoutMs);
  }

  private async send<T>(method: string, path: string, init: RequestInit, timeoutMs?: number): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    let text: string;
    let status: number;
    try {
      const response = await this.fetchFn(url, init);
      status = response.status;
      text = await response.text();
    } catch (error: unknown) {
      throw connectionError(error, this.service, this.baseUrl, timeoutMs);
    }
    if (status < 200 || status >= 300) throw errorFromAnswer(status, text);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(
        status,
        CliErrorCode.BadResponse,
        `${method} ${path} answered ${status} with a body that is not JSON`,
      );
    }
  }
}
