import { type CanActivate, type ExecutionContext, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthErrorCode, HttpErrorCode, TENANT_HEADER } from '@ums/contracts';
import { ForbiddenError, InvalidInputError, UnauthenticatedError } from '../errors/coded-error';
import { AuditTrail } from './audit-trail.service';
import { AUTH_METADATA, type AuthenticatedRequest, type RouteAuth } from './auth.decorators';
import type { Principal } from './principal';
import { PrincipalResolver } from './principal-resolver.service';

const TENANT_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

interface GuardedRequest extends AuthenticatedRequest {
  readonly headers: Record<string, string | string[] | undefined>;
}

/**
 * The one gate of every HTTP route: public routes pass, the others need a principal (401 without one);
 * `@Authenticated` routes take any principal, `@Requires` routes one holding their scope (403 without
 * it). Start-up (RouteAuthCheck) makes sure every route says which it is.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Optional() private readonly resolver?: PrincipalResolver,
    @Optional() private readonly audit?: AuditTrail,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const rule = this.reflector.getAllAndOverride<RouteAuth | undefined>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (rule?.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    if (rule === undefined || this.resolver === undefined) {
      throw new UnauthenticatedError(AuthErrorCode.Missing, 'This service has no authenticated routes');
    }
    const principal = actingFor(
      await this.resolver.resolve(single(request.headers['authorization'])),
      single(request.headers[TENANT_HEADER]),
    );
    request.principal = principal;
    if (rule.kind === 'authenticated') return true;
    if (!principal.scopes.has(rule.scope)) {
      await this.audit?.recordDenied(context, principal, AuthErrorCode.ScopeMissing);
      throw new ForbiddenError(AuthErrorCode.ScopeMissing, `This route needs the ${rule.scope} scope`, {
        scope: rule.scope,
      });
    }
    return true;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The principal with the tenant an operator names in X-Ums-Tenant; others may only name their own. */
function actingFor(principal: Principal, tenantHeader: string | undefined): Principal {
  if (tenantHeader === undefined) return principal;
  if (!TENANT_ID.test(tenantHeader)) {
    throw InvalidInputError.field(
      HttpErrorCode.TenantInvalid,
      'X-Ums-Tenant',
      'must be 1-64 of A-Z a-z 0-9 _ . : -',
    );
  }
  if (principal.kind === 'operator') return { ...principal, tenantId: tenantHeader };
  if (tenantHeader === principal.tenantId) return principal;
  throw new ForbiddenError(
    AuthErrorCode.TenantHeaderForbidden,
    'Only the operator key may act for another tenant (X-Ums-Tenant)',
  );
}
