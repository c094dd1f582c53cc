import {
  applyDecorators,
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { requireTenant } from '../auth/principal';
import { idempotencyKeyOf, idempotencyRouteOf, requestFingerprint } from './idempotency-key';
import { type IdempotentRequest, IdempotencyService } from './idempotency.service';

/** What the interceptor reads of a Fastify request. */
interface IdempotencyHttpRequest extends AuthenticatedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body?: unknown;
  readonly routeOptions?: { readonly url?: string };
}

/**
 * Runs a create route at most once per `Idempotency-Key` (of the caller's tenant, on this route and,
 * for a route with path parameters, this path: see idempotencyRouteOf), per IdempotencyService; a request without the header runs as usual. The guard has run before (the tenant
 * is the principal's), the validation pipe after: the key is checked, and claimed, before the body is.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp().getRequest<IdempotencyHttpRequest>();
    const key = idempotencyKeyOf(http.headers['idempotency-key']);
    if (key === undefined) return next.handle();
    if (http.principal === undefined) throw new Error('@Idempotent() on a route without @Requires');
    const request: IdempotentRequest = {
      tenantId: requireTenant(http.principal),
      route: idempotencyRouteOf(http.method, http.routeOptions?.url, http.url),
      key,
      requestHash: requestFingerprint(http.body),
    };
    // Nest sets the route's status on the reply after interceptors: read it where Nest does.
    const declared = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler());
    const status = declared ?? (http.method === 'POST' ? 201 : 200);
    return from(this.run(request, status, next));
  }

  private async run(request: IdempotentRequest, status: number, next: CallHandler): Promise<unknown> {
    const decision = await this.idempotency.begin(request);
    if (decision.kind === 'replay') return decision.body;
    let body: unknown;
    try {
      body = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (error: unknown) {
      await this.idempotency.release(request, decision.claim);
      throw error;
    }
    await this.idempotency.complete(request, decision.claim, status, body);
    return body;
  }
}

/**
 * A create route that takes an `Idempotency-Key` header (IETF draft semantics): the same key with the
 * same body answers the first answer again and creates nothing; with another body, 422; while the first
 * request runs, 409. Needs IdempotencyModule in the service and a route with @Requires.
 */
export const Idempotent = (): MethodDecorator => applyDecorators(UseInterceptors(IdempotencyInterceptor));

/** The request's `Idempotency-Key` (checked), or undefined when it sends none; as a handler parameter. */
export const IdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    idempotencyKeyOf(context.switchToHttp().getRequest<IdempotencyHttpRequest>().headers['idempotency-key']),
);
