import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Scope } from '@ums/contracts';
import type { Principal } from './principal';

export const AUTH_METADATA = 'ums:auth';

/**
 * How a route is protected: open on purpose (with the reason), open to any principal (with the reason no
 * scope is needed), or open to principals holding a scope.
 */
export type RouteAuth =
  | { readonly kind: 'public'; readonly reason: string }
  | { readonly kind: 'authenticated'; readonly reason: string }
  | { readonly kind: 'scope'; readonly scope: Scope };

/** The route needs a principal holding `scope` (on a method, or on a controller for all its routes). */
export const Requires = (scope: Scope): ClassDecorator & MethodDecorator =>
  SetMetadata<string, RouteAuth>(AUTH_METADATA, { kind: 'scope', scope });

/**
 * The route needs a valid credential but no particular scope (401 without one, never 403): `reason` says
 * why any principal may call it, e.g. it only answers what the caller's own credential says.
 */
export const Authenticated = (reason: string): ClassDecorator & MethodDecorator =>
  SetMetadata<string, RouteAuth>(AUTH_METADATA, { kind: 'authenticated', reason });

/** The route is open to anyone, on purpose: `reason` says what protects it instead. */
export const Public = (reason: string): ClassDecorator & MethodDecorator =>
  SetMetadata<string, RouteAuth>(AUTH_METADATA, { kind: 'public', reason });

/** The request with the principal the guard found. */
export interface AuthenticatedRequest {
  principal?: Principal;
}

/** The calling principal, as a handler parameter (set by the guard before the handler runs). */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (principal === undefined) throw new Error('@Caller() on a route without @Requires or @Authenticated');
  return principal;
});
