import { HttpErrorCode, Scope } from '@ums/contracts';
import { InvalidInputError } from '../errors/coded-error';

/** Who is calling: a tenant's API key, a tenant's JWT, or the deployment's operator. */
export interface Principal {
  readonly kind: 'api-key' | 'operator' | 'jwt';
  /** The key id (`key_...`), `operator`, or the JWT's subject. */
  readonly id: string;
  /**
   * The tenant the call acts for. Always set for keys and JWTs; for the operator, the tenant named by the
   * X-Ums-Tenant header, or null when it acts across tenants.
   */
  readonly tenantId: string | null;
  readonly scopes: ReadonlySet<Scope>;
}

/** Which tenant's rows a read or write may touch: a tenant id, or null for every tenant (operators only). */
export type TenantFilter = string | null;

/** The tenant to create something for: the principal's, or for an operator the X-Ums-Tenant header. */
export function requireTenant(principal: Principal): string {
  if (principal.tenantId !== null) return principal.tenantId;
  throw InvalidInputError.field(
    HttpErrorCode.TenantRequired,
    'X-Ums-Tenant',
    'the operator key acts across tenants: name the tenant to act for with the X-Ums-Tenant header',
  );
}

/** A label for logs and the audit trail (never a secret). */
export function describePrincipal(principal: Principal): string {
  return principal.kind === 'operator' ? 'operator' : `${principal.kind}:${principal.id}`;
}
