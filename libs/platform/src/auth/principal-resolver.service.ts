import { Injectable } from '@nestjs/common';
import { AuthErrorCode, OPERATOR_SCOPES } from '@ums/contracts';
import { UnauthenticatedError } from '../errors/coded-error';
import { parseBearerToken, sameDigest, sha256Hex } from './api-key-token';
import { ApiKeysRepository } from './api-keys.repository';
import { AuthConfig } from './auth.config';
import { JwtVerifier } from './jwt-verifier';
import type { Principal } from './principal';
import { PrincipalCache } from './principal-cache';

/** A token's principal and when it stops being valid by itself (an API key's expiry), or the refusal. */
type Resolution =
  | { readonly principal: Principal; readonly expiresAtMs: number | null }
  | { readonly refusal: { readonly code: AuthErrorCode; readonly message: string } };

const OPERATOR: Principal = {
  kind: 'operator',
  id: 'operator',
  tenantId: null,
  scopes: new Set(OPERATOR_SCOPES),
};
const JWT_CACHE_MS = 60_000;
const MAX_HEADER_LENGTH = 16_384;

/**
 * Turns an Authorization header into a principal. API keys are hashed and read from the database once
 * per replica and AUTH_KEY_CACHE_MS, so a revoked key stops working everywhere within that time plus a
 * read; refusals are cached the same way, and concurrent first uses of one token share one lookup.
 */
@Injectable()
export class PrincipalResolver {
  private readonly cache = new PrincipalCache<Resolution>(10_000);
  private readonly pending = new Map<string, Promise<Resolution>>();
  private readonly operatorHash: string;

  constructor(
    private readonly config: AuthConfig,
    private readonly keys: ApiKeysRepository,
    private readonly jwt: JwtVerifier,
  ) {
    this.operatorHash = sha256Hex(config.AUTH_OPERATOR_KEY);
  }

  async resolve(authorization: string | undefined, now = Date.now()): Promise<Principal> {
    const token = bearerToken(authorization);
    const resolution = this.cache.get(token, now) ?? (await this.lookupOnce(token, now));
    if ('refusal' in resolution) {
      throw new UnauthenticatedError(resolution.refusal.code, resolution.refusal.message);
    }
    if (resolution.expiresAtMs !== null && resolution.expiresAtMs <= now) {
      const code = resolution.principal.kind === 'jwt' ? AuthErrorCode.JwtExpired : AuthErrorCode.KeyExpired;
      throw new UnauthenticatedError(
        code,
        resolution.principal.kind === 'jwt' ? 'The token has expired' : 'The API key has expired',
      );
    }
    return resolution.principal;
  }

  /** Forgets every cached answer (a key revoked on this replica takes effect here at once). */
  forget(): void {
    this.cache.clear();
  }

  private lookupOnce(token: string, now: number): Promise<Resolution> {
    const inFlight = this.pending.get(token);
    if (inFlight !== undefined) return inFlight;
    const lookup = this.lookup(token, now).finally(() => this.pending.delete(token));
    this.pending.set(token, lookup);
    return lookup;
  }

  private async lookup(token: string, now: number): Promise<Resolution> {
    const parsed = parseBearerToken(token);
    let resolution: Resolution;
    let until = now + this.config.AUTH_KEY_CACHE_MS;
    if (parsed.kind === 'malformed') {
      resolution = refusal(AuthErrorCode.Malformed, 'The bearer token is neither an API key nor a JWT');
    } else if (parsed.kind === 'operator') {
      resolution = sameDigest(sha256Hex(token), this.operatorHash)
        ? { principal: OPERATOR, expiresAtMs: null }
        : refusal(AuthErrorCode.UnknownKey, 'Unknown API key');
    } else if (parsed.kind === 'api-key') {
      resolution = await this.apiKey(token, parsed.keyId);
    } else {
      try {
        resolution = await this.jwt.verify(token);
        until = Math.min(now + JWT_CACHE_MS, resolution.expiresAtMs ?? Infinity);
      } catch (error: unknown) {
        // A refusal of the token is cached; the identity provider being unreachable is not.
        if (!(error instanceof UnauthenticatedError)) throw error;
        resolution = refusal(error.code as AuthErrorCode, error.message);
      }
    }
    this.cache.set(token, resolution, until);
    return resolution;
  }

  private async apiKey(token: string, keyId: string): Promise<Resolution> {
    const key = await this.keys.find(keyId, null);
    if (key === undefined || !sameDigest(sha256Hex(token), key.secretHash)) {
      return refusal(AuthErrorCode.UnknownKey, 'Unknown API key');
    }
    if (key.revokedAt !== null) return refusal(AuthErrorCode.KeyRevoked, 'The API key has been revoked');
    return {
      principal: { kind: 'api-key', id: key.id, tenantId: key.tenantId, scopes: new Set(key.scopes) },
      expiresAtMs: key.expiresAt === null ? null : key.expiresAt.getTime(),
    };
  }
}

function refusal(code: AuthErrorCode, message: string): Resolution {
  return { refusal: { code, message } };
}

function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw new UnauthenticatedError(
      AuthErrorCode.Missing,
      'No credential: send Authorization: Bearer <API key or token>',
    );
  }
  const match = authorization.length <= MAX_HEADER_LENGTH ? /^Bearer +(\S+) *$/i.exec(authorization) : null;
  if (match?.[1] === undefined) {
    throw new UnauthenticatedError(
      AuthErrorCode.Malformed,
      'The Authorization header must read Bearer <token>',
    );
  }
  return match[1];
}
