/** What the client calls to send a request: `globalThis.fetch` by default, or any function like it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** The service's http(s) URL, e.g. `http://127.0.0.1:3000` (a trailing slash is dropped). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`: a tenant's API key, a JWT or the operator key. */
  readonly apiKey?: string;
  /** The operator key only: the tenant it acts for, sent as `X-Ums-Tenant`. */
  readonly tenant?: string;
  /** Requests other than uploads and downloads are cut after this many ms (none when left out). */
  readonly timeoutMs?: number;
  /** How errors name the service, e.g. "the campaign API" (the default of each client). */
  readonly service?: string;
  readonly fetch?: FetchLike;
}

/** Options of a call that creates something. */
export interface CreateOptions {
  /**
   * Sent as `Idempotency-Key`: a retry with the same key and body answers the first answer again and
   * creates nothing; the same key with another body is refused (422). Keys are kept for 24 h.
   */
  readonly idempotencyKey?: string;
}

/** A file for a multipart upload (an audience or an opt-out CSV). */
export interface UploadFile {
  readonly fileName: string;
  readonly contentType: string;
  /** The bytes, at once or as they are read (an async iterable is streamed, never held in memory). */
  readonly content: Uint8Array | AsyncIterable<Uint8Array>;
}
