import { createHash } from 'node:crypto';
import { IdempotencyErrorCode } from '@ums/contracts';
import { configure } from 'safe-stable-stringify';
import { InvalidInputError } from '../errors/coded-error';

/** The request header naming a create request (IETF draft "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** Printable ASCII (space to tilde), 1 to 255 characters. */
const KEY = /^[\x20-\x7e]{1,255}$/;
/** A Structured Fields string (RFC 8941 3.3.3), the draft's form: `"..."` with `\"` and `\\` escaped. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/** JSON with object keys sorted (the same value always gives the same text); anything not JSON throws. */
const canonicalJson = configure({ deterministic: true, strict: true, bigint: false });

function keyInvalid(reason: string): InvalidInputError {
  return InvalidInputError.field(IdempotencyErrorCode.KeyInvalid, IDEMPOTENCY_KEY_HEADER, reason);
}

/**
 * The key a request names, or undefined when it names none. Sent as the draft writes it (a quoted
 * Structured Fields string) or bare; either way the key is what is between the quotes, so `"a1"` and
 * `a1` are one key. Throws 400 IDEMPOTENCY_KEY_INVALID for a repeated header, an empty or longer
 * than 255 characters key, or one with characters outside printable ASCII.
 */
export function idempotencyKeyOf(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string') throw keyInvalid('must be sent once');
  const quoted = SF_STRING.exec(header);
  const key = quoted === null ? header : (quoted[1] as string).replace(/\\(["\\])/g, '$1');
  if (key.length === 0) throw keyInvalid('must not be empty');
  if (key.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    throw keyInvalid(`must be at most ${MAX_IDEMPOTENCY_KEY_CHARS} characters, got ${key.length}`);
  }
  if (!KEY.test(key)) throw keyInvalid('must be printable ASCII (space to ~)');
  return key;
}

/** SHA-256 (hex) of the body as canonical JSON: a body with its keys in another order is the same request. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(body ?? null) as string, 'utf8')
    .digest('hex');
}

/** The characters of `idempotency_keys.route` (VARCHAR(100), ASCII). */
export const MAX_IDEMPOTENCY_ROUTE_CHARS = 100;
/** A path kept as it is: printable ASCII without spaces. */
const PLAIN_PATH = /^[\x21-\x7e]*$/;

/**
 * What a key is kept under besides the tenant: the route as declared (`POST /v1/campaigns`) when it
 * has no path parameters, else the path the server received, without the query
 * (`POST /v1/campaigns/cmp_1/test-sends`), so that one key sent to two campaigns names two requests.
 * A path too long for the column, or not printable ASCII, is kept as the declared route (cut) and
 * `#` with the SHA-256 (base64url) of the method and path. Without a declared route, the path.
 */
export function idempotencyRouteOf(method: string, declared: string | undefined, url: string): string {
  const path = url.split('?')[0] ?? '';
  if (declared !== undefined && !/[:*]/.test(declared)) return `${method} ${declared}`;
  const route = `${method} ${path}`;
  if (route.length <= MAX_IDEMPOTENCY_ROUTE_CHARS && PLAIN_PATH.test(path)) return route;
  const hash = createHash('sha256').update(route, 'utf8').digest('base64url');
  const prefix = `${method} ${declared ?? ''}`.slice(0, MAX_IDEMPOTENCY_ROUTE_CHARS - hash.length - 1);
  return `${prefix}#${hash}`;
}
