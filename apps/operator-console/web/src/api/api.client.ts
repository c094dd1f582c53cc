import type { SessionStore } from '../session/session.store';
import { ApiError, parseApiError, toApiError, isAbort } from './api-error';
import { type Query, queryString } from './query-string';

/** The two APIs the console's server proxies. */
export type Service = 'scheduler' | 'dispatcher';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface CallOptions {
  readonly method?: Method;
  readonly query?: Query;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** A create: sends a fresh Idempotency-Key. */
  readonly create?: boolean;
  readonly accept?: string;
  readonly signal?: AbortSignal;
  /** False for the sign-in check: a 401 is shown there instead of leaving the page. */
  readonly redirectOnAuthFailure?: boolean;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** What the app does on a 401 (back to sign-in) and a 403 (the Forbidden page). */
export interface AuthFailureHandlers {
  onUnauthorized(error: ApiError): void;
  onForbidden(error: ApiError): void;
}

export interface ApiClientOptions {
  readonly session: SessionStore;
  readonly fetch: FetchLike;
  /** A new Idempotency-Key (crypto.randomUUID in the browser). */
  readonly randomId: () => string;
  /** Where the console's server mounts the APIs ('/api'). */
  readonly basePath?: string;
}

/**
 * Calls the campaign-scheduler and webhook-dispatcher through the console's proxy
 * (`/api/scheduler/...`, `/api/dispatcher/...`) with the signed-in key. Every refusal is an ApiError;
 * a 401 and a 403 also go to the app's handlers.
 */
export class ApiClient {
  private handlers: AuthFailureHandlers | undefined;

  constructor(private readonly options: ApiClientOptions) {}

  setAuthFailureHandlers(handlers: AuthFailureHandlers): void {
    this.handlers = handlers;
  }

  url(service: Service, path: string, query?: Query): string {
    return `${this.options.basePath ?? '/api'}/${service}${path}${queryString(query)}`;
  }

  /** The headers of a call: the key, the operator's tenant on creates and changes, a key on creates. */
  headers(method: Method, options: Pick<CallOptions, 'create' | 'accept'>, key?: string): Headers {
    const headers = new Headers({ accept: options.accept ?? 'application/json' });
    const bearer = key ?? this.options.session.key;
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
    const tenant = this.options.session.actingTenant;
    if (method !== 'GET' && tenant !== null) headers.set('x-ums-tenant', tenant);
    if (options.create === true) headers.set('idempotency-key', this.options.randomId());
    return headers;
  }

  /** The JSON answer of a call (undefined for 204). */
  async json<T>(service: Service, path: string, options: CallOptions = {}): Promise<T> {
    const response = await this.send(service, path, options);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError({
        status: response.status,
        code: 'BAD_RESPONSE',
        message: 'The answer is not JSON',
      });
    }
  }

  /** The answer's body as a Blob (CSV exports). */
  async blob(service: Service, path: string, options: CallOptions = {}): Promise<Blob> {
    const response = await this.send(service, path, options);
    return response.blob();
  }

  /** Checks a key before it is kept: GET /v1/whoami with it, no redirect on a 401. */
  async whoamiOf<T>(key: string): Promise<T> {
    const response = await this.fetchChecked(this.url('scheduler', '/v1/whoami'), {
      method: 'GET',
      headers: this.headers('GET', {}, key),
    });
    return (await response.json()) as T;
  }

  /** A 2xx response, its body unread (server-sent events read it as a stream). */
  async send(service: Service, path: string, options: CallOptions = {}): Promise<Response> {
    const method = options.method ?? 'GET';
    const headers = this.headers(method, options);
    let body: string | undefined;
    if (options.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.body);
    }
    try {
      return await this.fetchChecked(this.url(service, path, options.query), {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (thrown) {
      if (options.redirectOnAuthFailure !== false) this.report(thrown);
      throw thrown;
    }
  }

  /** Hands a 401 or 403 to the app (sign-in, Forbidden page). */
  report(thrown: unknown): void {
    if (!(thrown instanceof ApiError)) return;
    if (thrown.status === 401) this.handlers?.onUnauthorized(thrown);
    if (thrown.status === 403) this.handlers?.onForbidden(thrown);
  }

  private async fetchChecked(url: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await this.options.fetch(url, init);
    } catch (thrown) {
      if (isAbort(thrown)) throw thrown;
      throw toApiError(thrown);
    }
    if (response.ok) return response;
    throw parseApiError(response.status, await response.text().catch(() => ''));
  }
}
