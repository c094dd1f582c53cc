import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ulid } from 'ulid';

/**
 * API key tokens. A tenant key reads `umsk_<id>_<secret>`: the id (a ULID) finds the stored row, the
 * secret is 32 random bytes in base64url. The prefix lets logs and secret scanners recognise a key. Only
 * the SHA-256 of the whole token is stored: the secret has 256 bits of entropy, so a slow password hash
 * adds nothing, and the hash is computed once per replica and cache period, not per request.
 * The operator key reads `umso_<at least 43 base64url characters>` and comes from the deployment.
 */
export const TENANT_KEY_PREFIX = 'umsk_';
export const OPERATOR_KEY_PREFIX = 'umso_';
export const OPERATOR_KEY_PATTERN = /^umso_[A-Za-z0-9_-]{43,200}$/;
const TENANT_KEY_PATTERN = /^umsk_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{43})$/;

export interface NewApiKeyToken {
  /** The stored id (`key_<ULID>`). */
  readonly id: string;
  /** The whole token, shown once. */
  readonly token: string;
  readonly secretHash: string;
}

export function newApiKeyToken(): NewApiKeyToken {
  const id = ulid();
  const token = `${TENANT_KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  return { id: `key_${id}`, token, secretHash: sha256Hex(token) };
}

/** A new operator key, for deployments to put in their Secret. */
export function newOperatorKey(): string {
  return `${OPERATOR_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export type ParsedToken =
  | { readonly kind: 'api-key'; readonly keyId: string }
  | { readonly kind: 'operator' }
  | { readonly kind: 'jwt' }
  | { readonly kind: 'malformed' };

const JWT_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** What a bearer token claims to be, from its form alone. */
export function parseBearerToken(token: string): ParsedToken {
  const key = TENANT_KEY_PATTERN.exec(token);
  if (key !== null) return { kind: 'api-key', keyId: `key_${key[1]}` };
  if (OPERATOR_KEY_PATTERN.test(token)) return { kind: 'operator' };
  if (token.length <= 16_384 && JWT_PATTERN.test(token)) return { kind: 'jwt' };
  return { kind: 'malformed' };
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Equal hex digests, compared in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
