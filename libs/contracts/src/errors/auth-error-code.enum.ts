/** Why a request was refused before its route ran: the `code` of a 401, 403 or 503 answer. */
export enum AuthErrorCode {
  /** 401: no Authorization header. */
  Missing = 'AUTH_MISSING',
  /** 401: an Authorization header that is not `Bearer <token>`, or a token of no known form. */
  Malformed = 'AUTH_MALFORMED',
  /** 401: an API key that no replica knows (never created, or deleted). */
  UnknownKey = 'AUTH_KEY_UNKNOWN',
  /** 401: an API key that was revoked. */
  KeyRevoked = 'AUTH_KEY_REVOKED',
  /** 401: an API key past its expiry. */
  KeyExpired = 'AUTH_KEY_EXPIRED',
  /** 401: a JWT whose signature, issuer or algorithm does not verify against the identity provider's keys. */
  JwtInvalid = 'AUTH_JWT_INVALID',
  /** 401: a JWT whose audience (aud) is not this API. */
  JwtAudience = 'AUTH_JWT_AUDIENCE',
  /** 401: a JWT past its expiry (exp). */
  JwtExpired = 'AUTH_JWT_EXPIRED',
  /** 401: a JWT without the configured tenant claim. */
  JwtTenantMissing = 'AUTH_JWT_TENANT_MISSING',
  /** 401: a JWT where this deployment accepts none (no JWKS URL configured). */
  JwtNotAccepted = 'AUTH_JWT_NOT_ACCEPTED',
  /** 503: the identity provider's keys could not be fetched; not the caller's fault. */
  JwksUnavailable = 'AUTH_JWKS_UNAVAILABLE',
  /** 403: the principal lacks the route's scope. */
  ScopeMissing = 'AUTH_SCOPE_MISSING',
  /** 403: X-Ums-Tenant from a principal that is not the operator. */
  TenantHeaderForbidden = 'AUTH_TENANT_HEADER_FORBIDDEN',
}
