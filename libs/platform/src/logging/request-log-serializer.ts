import type { IncomingHttpHeaders } from 'node:http';

/**
 * The only request headers a log line carries. Everything else is left out, so credentials, provider
 * signatures and tokens (Authorization, X-Hub-Signature-256, X-Twilio-Signature, X-Mitto-Token,
 * X-Sim-Signature, cookies, and whatever header a client or provider adds next) never reach a log.
 * Add a header here only if its value can never be a secret.
 */
export const LOGGED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'user-agent',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'accept',
  'accept-encoding',
  'connection',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-request-id',
  'traceparent',
  'x-ums-tenant',
  'x-amz-sns-message-type',
  'x-amz-sns-message-id',
  'x-amz-sns-topic-arn',
  'i-twilio-idempotency-token',
]);

/** Query parameters whose values are replaced in logged URLs (Meta's `hub.verify_token`, keys, signatures). */
const SECRET_QUERY_NAME = /token|secret|signature|sig$|password|passw|key|auth|credential/i;
const REDACTED = '[redacted]';

/** What a request log line says about the request. */
export interface LoggedRequest {
  readonly id?: unknown;
  readonly method?: string;
  readonly url?: string;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly params?: unknown;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  /** The client address and protocol as the trusted proxies vouch for them (TRUSTED_PROXY_CIDRS). */
  readonly ip?: string;
  readonly protocol?: string;
}

/** A Node request, a Fastify request, or a Node request as middie passes it on (with ip, query). */
interface RequestLike {
  readonly id?: unknown;
  readonly method?: string;
  readonly url?: string;
  readonly originalUrl?: string;
  readonly query?: unknown;
  readonly params?: unknown;
  readonly headers?: IncomingHttpHeaders;
  readonly ip?: unknown;
  readonly protocol?: unknown;
  readonly socket?: { readonly remoteAddress?: string; readonly remotePort?: number } | null;
  readonly raw?: RequestLike;
}

/**
 * The request serializer of every service log (pino `serializers.req`): headers from
 * LOGGED_REQUEST_HEADERS only, secret-looking query values replaced, and the client address and
 * protocol when the request knows them by the trusted-proxy rule.
 */
export function serializeRequest(req: RequestLike): LoggedRequest {
  const socket = req.socket ?? req.raw?.socket ?? undefined;
  const query = typeof req.query === 'object' && req.query !== null ? redactQuery(req.query) : undefined;
  const url = req.originalUrl ?? req.url;
  return {
    id: req.id,
    method: req.method,
    url: url === undefined ? undefined : redactUrl(url),
    ...(query === undefined ? {} : { query }),
    ...(req.params === undefined ? {} : { params: req.params }),
    headers: allowedHeaders(req.headers ?? {}),
    remoteAddress: socket?.remoteAddress,
    remotePort: socket?.remotePort,
    // A Fastify request reads both from its socket, and throws once the connection is gone (a request
    // whose answer closed it is logged after that).
    ...(socket != null && typeof req.ip === 'string' ? { ip: req.ip } : {}),
    ...(socket != null && typeof req.protocol === 'string' ? { protocol: req.protocol } : {}),
  };
}

export function allowedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && LOGGED_REQUEST_HEADERS.has(name.toLowerCase())) kept[name] = value;
  }
  return kept;
}

/** A URL with the values of secret-looking query parameters replaced; the rest kept verbatim. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const pairs = url.slice(mark + 1).split('&');
  let changed = false;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i] ?? '';
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (eq !== -1 && SECRET_QUERY_NAME.test(safeDecode(name))) {
      pairs[i] = `${name}=${REDACTED}`;
      changed = true;
    }
  }
  return changed ? `${url.slice(0, mark + 1)}${pairs.join('&')}` : url;
}

function redactQuery(query: object): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    kept[name] = SECRET_QUERY_NAME.test(name) ? REDACTED : value;
  }
  return kept;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
