import { type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ServiceInfo } from '../bootstrap/service-info';
import { errorCode } from '../errors/coded-error';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { type AuditEvent, AuditEventsRepository } from './audit-events.repository';
import type { Principal } from './principal';

interface RoutedRequest {
  readonly method: string;
  readonly id?: string;
  readonly url: string;
  readonly params?: unknown;
  readonly routeOptions?: { readonly url?: string };
}

/**
 * Writes the audit trail: a row in audit_events and a structured `audit` log line for every
 * state-changing call and every refused one whose caller is known. A failed write is logged and
 * counted (ums_audit_write_failures_total, alerted on), and does not undo or fail the call it records:
 * the change has happened, and answering an error would invite a retry.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new Logger('audit');
  private readonly failures: Counter;

  constructor(
    private readonly events: AuditEventsRepository,
    private readonly service: ServiceInfo,
    metrics: MetricsRegistry,
  ) {
    this.failures = new Counter({
      name: 'ums_audit_write_failures_total',
      help: 'Audit events that could not be stored (each is still in the log)',
      registers: [metrics],
    });
  }

  async recordCall(context: ExecutionContext, principal: Principal, outcome: CallOutcome): Promise<void> {
    const request = context.switchToHttp().getRequest<RoutedRequest>();
    await this.write(this.eventOf(request, principal, outcome));
  }

  async recordDenied(context: ExecutionContext, principal: Principal, code: string): Promise<void> {
    const request = context.switchToHttp().getRequest<RoutedRequest>();
    await this.write(this.eventOf(request, principal, { status: 403, error: code }));
  }

  private eventOf(request: RoutedRequest, principal: Principal, outcome: CallOutcome): AuditEvent {
    return {
      principalKind: principal.kind,
      principalId: principal.id,
      tenantId: principal.tenantId,
      service: this.service.name,
      action: `${request.method} ${request.routeOptions?.url ?? request.url.split('?')[0] ?? ''}`,
      target: targetOf(request.params, outcome.body),
      status: outcome.status,
      result:
        outcome.error === undefined
          ? 'ok'
          : typeof outcome.error === 'string'
            ? outcome.error
            : errorCode(outcome.error),
      requestId: request.id ?? null,
    };
  }

  private async write(event: AuditEvent): Promise<void> {
    this.logger.log({ audit: event }, 'audit');
    try {
      await this.events.insert(event);
    } catch (error: unknown) {
      this.failures.inc();
      this.logger.error({ err: error, audit: event }, 'Audit event not stored');
    }
  }
}

/** How a call ended: its status, and the error or the answer's body. */
export interface CallOutcome {
  readonly status: number;
  readonly error?: unknown;
  readonly body?: unknown;
}

/** The route's path parameters (`campaignId=cmp_1 runId=run_2`), or the id the call created. */
function targetOf(params: unknown, body: unknown): string | null {
  const parts: string[] = [];
  if (typeof params === 'object' && params !== null) {
    for (const [name, value] of Object.entries(params)) parts.push(`${name}=${String(value)}`);
  }
  if (parts.length === 0 && typeof body === 'object' && body !== null && 'id' in body) {
    parts.push(`id=${String((body as { id: unknown }).id)}`);
  }
  return parts.length === 0 ? null : parts.join(' ');
}
