import { GatewayErrorCode, HttpErrorCode } from '@ums/contracts';
import { type ErrorBody, InvalidInputError } from '@ums/platform';

/** The APIs behind the console, by the name its messages use. */
export type ConsoleApi = 'campaign-scheduler' | 'webhook-dispatcher';

/** How the console answers a call it could not pass on. */
export interface UpstreamFailure {
  readonly status: 502 | 503 | 504;
  readonly code: GatewayErrorCode;
  readonly body: ErrorBody;
}

/** Node and undici codes of a connection that could not be made: the API is down or not there. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'FST_REPLY_FROM_SERVICE_UNAVAILABLE',
]);
/** Codes of an answer that did not begin in time (@fastify/reply-from and undici). */
const TIMED_OUT = new Set([
  'FST_REPLY_FROM_GATEWAY_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'FST_REPLY_FROM_TIMEOUT',
]);

/** The codes of an error and of its causes, outermost first. */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  return codes;
}

/**
 * What to answer when passing a call on to `api` failed with `error` (from @fastify/reply-from, with
 * the socket's error as its cause): 503 when no connection could be made, 504 when the answer did
 * not begin in time, 502 for anything else (a connection that broke, an answer that was not HTTP).
 * The message names the API and never its address, nor the error's own text (which carries it).
 */
export function upstreamFailure(api: ConsoleApi, error: unknown): UpstreamFailure {
  const codes = codesOf(error);
  if (codes.some((code) => TIMED_OUT.has(code))) {
    return failure(504, GatewayErrorCode.UpstreamTimeout, `The ${api} API did not answer in time`);
  }
  if (codes.some((code) => UNREACHABLE.has(code))) {
    return failure(
      503,
      GatewayErrorCode.UpstreamUnavailable,
      `The ${api} API is not reachable from the console; retry later`,
    );
  }
  return failure(
    502,
    GatewayErrorCode.UpstreamFailed,
    `The connection to the ${api} API failed before it answered`,
  );
}

/**
 * The proxy's refusal of a path that would leave the API's prefix once decoded (`..`, encoded slashes;
 * @fastify/http-proxy throws it as a bare 400) as the platform's VALIDATION_FAILED naming the path.
 */
export function pathRefusal(error: unknown): unknown {
  const bare = error instanceof Error && (error as Error & { code?: unknown }).code === undefined;
  if (!bare || (error as Error & { statusCode?: unknown }).statusCode !== 400) return error;
  return InvalidInputError.field(
    HttpErrorCode.ValidationFailed,
    'path',
    "must be a path of the API, without '..' segments or encoded slashes",
  );
}

function failure(
  status: UpstreamFailure['status'],
  code: GatewayErrorCode,
  message: string,
): UpstreamFailure {
  return { status, code, body: { error: { code, message } } };
}
