/**
 * What an API principal may do. A tenant's API key or JWT carries some of these; the operator key
 * carries all of them and may act across tenants.
 */
export enum Scope {
  CampaignsRead = 'campaigns:read',
  CampaignsWrite = 'campaigns:write',
  CredentialsRead = 'credentials:read',
  CredentialsWrite = 'credentials:write',
  MessagesRead = 'messages:read',
  SubscribersRead = 'subscribers:read',
  SubscribersWrite = 'subscribers:write',
  DeadLettersAdmin = 'dead-letters:admin',
  ApiKeysRead = 'api-keys:read',
  ApiKeysWrite = 'api-keys:write',
  AuditRead = 'audit:read',
}

/** Every scope, in a stable order (the operator's set, and the default of a new tenant key). */
export const ALL_SCOPES: readonly Scope[] = Object.values(Scope);

const SCOPE_VALUES = new Set<string>(ALL_SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_VALUES.has(value);
}

/** Why a request was refused before its route ran: the `code` of a 401 or 403 answer. */
export enum AuthErrorCode {
  /** No Authorization header. */
  Missing = 'AUTH_MISSING',
  /** An Authorization header that is not `Bearer <token>`, or a token of no known form. */
  Malformed = 'AUTH_MALFORMED',
  /** An API key that no replica knows (never created, or deleted). */
  UnknownKey = 'AUTH_KEY_UNKNOWN',
  KeyRevoked = 'AUTH_KEY_REVOKED',
  KeyExpired = 'AUTH_KEY_EXPIRED',
  /** A JWT whose signature, issuer or algorithm does not verify against the identity provider's keys. */
  JwtInvalid = 'AUTH_JWT_INVALID',
  JwtAudience = 'AUTH_JWT_AUDIENCE',
  JwtExpired = 'AUTH_JWT_EXPIRED',
  /** A JWT without the configured tenant claim. */
  JwtTenantMissing = 'AUTH_JWT_TENANT_MISSING',
  /** A JWT where this deployment accepts none (no JWKS URL configured). */
  JwtNotAccepted = 'AUTH_JWT_NOT_ACCEPTED',
  /** The identity provider's keys could not be fetched: a 503, not the caller's fault. */
  JwksUnavailable = 'AUTH_JWKS_UNAVAILABLE',
  /** 403: the principal lacks the route's scope. */
  ScopeMissing = 'AUTH_SCOPE_MISSING',
  /** 403: X-Ums-Tenant from a principal that is not the operator. */
  TenantHeaderForbidden = 'AUTH_TENANT_HEADER_FORBIDDEN',
}

/** The header an operator names the tenant it acts for with. */
export const TENANT_HEADER = 'x-ums-tenant';
