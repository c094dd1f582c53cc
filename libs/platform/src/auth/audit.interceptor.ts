import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  Optional,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { describeError } from '../http/error-response.filter';
import { AuditTrail } from './audit-trail.service';
import type { AuthenticatedRequest } from './auth.decorators';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Records every state-changing call of an authenticated route in the audit trail once it has ended,
 * with its answer's status (the error's, when it failed), before the answer is sent.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Optional() private readonly audit?: AuditTrail,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest & { method: string }>();
    const principal = request.principal;
    if (this.audit === undefined || principal === undefined || READS.has(request.method))
      return next.handle();
    const audit = this.audit;
    return from(
      (async (): Promise<unknown> => {
        let body: unknown;
        try {
          body = await lastValueFrom(next.handle(), { defaultValue: undefined });
        } catch (error: unknown) {
          await audit.recordCall(context, principal, { status: describeError(error)[0], error });
          throw error;
        }
        // Nest sets the route's status on the reply after interceptors: read it where Nest does.
        const declared = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler());
        const status = declared ?? (request.method === 'POST' ? 201 : 200);
        await audit.recordCall(context, principal, { status, body });
        return body;
      })(),
    );
  }
}
