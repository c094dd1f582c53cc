/** GET /v1/whoami: the calling principal, as the API sees it (never a secret). */
export interface WhoamiView {
  /** `api-key` (a tenant's key), `jwt` (a token of the identity provider) or `operator`. */
  readonly kind: 'api-key' | 'operator' | 'jwt';
  /** The key id (`key_...`), `operator`, or the JWT's subject. */
  readonly id: string;
  /** The tenant the call acts for; null for the operator acting across tenants (no X-Ums-Tenant). */
  readonly tenantId: string | null;
  /** The credential's scopes, sorted. */
  readonly scopes: readonly string[];
}
