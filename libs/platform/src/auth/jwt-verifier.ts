import { Injectable } from '@nestjs/common';
import { AuthErrorCode, isScope, type Scope } from '@ums/contracts';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { UnauthenticatedError, UnavailableError } from '../errors/coded-error';
import { AuthConfig } from './auth.config';
import type { Principal } from './principal';

const TENANT_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A verified token's principal and when the token expires (ms since the epoch). */
export interface VerifiedJwt {
  readonly principal: Principal;
  readonly expiresAtMs: number | null;
}

/**
 * Bearer JWTs from the platform's identity provider, verified with `jose` against its JWKS (fetched,
 * cached and refreshed on an unknown key id by jose), with issuer, audience and algorithms pinned by
 * config; tenant and scopes come from the configured claims.
 */
@Injectable()
export class JwtVerifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(private readonly config: AuthConfig) {
    this.keys =
      config.AUTH_JWKS_URL === undefined
        ? undefined
        : createRemoteJWKSet(new URL(config.AUTH_JWKS_URL), {
            timeoutDuration: 5_000,
            cooldownDuration: 30_000,
            cacheMaxAge: 600_000,
          });
  }

  async verify(token: string): Promise<VerifiedJwt> {
    if (this.keys === undefined) {
      throw new UnauthenticatedError(
        AuthErrorCode.JwtNotAccepted,
        'This deployment accepts API keys, not JWTs',
      );
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        audience: this.config.AUTH_JWT_AUDIENCE,
        ...(this.config.AUTH_JWT_ISSUER === undefined ? {} : { issuer: this.config.AUTH_JWT_ISSUER }),
        algorithms: this.config.AUTH_JWT_ALGORITHMS,
        clockTolerance: 5,
      }));
    } catch (error: unknown) {
      throw jwtRefusal(error);
    }
    return {
      principal: this.principalOf(payload),
      expiresAtMs: payload.exp === undefined ? null : payload.exp * 1000,
    };
  }

  private principalOf(payload: JWTPayload): Principal {
    const tenant = payload[this.config.AUTH_JWT_TENANT_CLAIM];
    if (typeof tenant !== 'string' || !TENANT_ID.test(tenant)) {
      throw new UnauthenticatedError(
        AuthErrorCode.JwtTenantMissing,
        `The token has no tenant id in its ${this.config.AUTH_JWT_TENANT_CLAIM} claim`,
      );
    }
    return {
      kind: 'jwt',
      id: typeof payload.sub === 'string' ? payload.sub.slice(0, 200) : 'unknown',
      tenantId: tenant,
      scopes: scopesOf(payload[this.config.AUTH_JWT_SCOPES_CLAIM]),
    };
  }
}

function scopesOf(claim: unknown): ReadonlySet<Scope> {
  const values = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
  return new Set(values.filter((v): v is Scope => typeof v === 'string' && isScope(v)));
}

/** jose's failure as our refusal: the caller's token (401) or the identity provider being unreachable (503). */
function jwtRefusal(error: unknown): Error {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const claim =
    typeof error === 'object' && error !== null ? (error as { claim?: unknown }).claim : undefined;
  if (code === 'ERR_JWT_EXPIRED')
    return new UnauthenticatedError(AuthErrorCode.JwtExpired, 'The token has expired');
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim === 'aud') {
    return new UnauthenticatedError(AuthErrorCode.JwtAudience, 'The token is not meant for this API (aud)');
  }
  const providerFault = ['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC'];
  if (typeof code !== 'string' || !code.startsWith('ERR_') || providerFault.includes(code)) {
    return new UnavailableError(
      AuthErrorCode.JwksUnavailable,
      "The identity provider's keys could not be fetched; try again",
      undefined,
      { cause: error },
    );
  }
  const what = code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' ? ` (${String(claim)})` : '';
  return new UnauthenticatedError(AuthErrorCode.JwtInvalid, `The token does not verify${what}`);
}
