import { Controller, Get, Query } from '@nestjs/common';
import { AUDIT_EVENT_PAGE, type AuditEventPage, Scope } from '@ums/contracts';
import { ApiAnswer, AuditEventsRepository, Caller, type Principal, Requires } from '@ums/platform';
import { ListAuditEventsDto } from './audit.dto';

/** The audit trail of the caller's tenant (the operator: every tenant's, or the X-Ums-Tenant one's). */
@Controller('v1/audit-events')
export class AuditController {
  constructor(private readonly events: AuditEventsRepository) {}

  @Requires(Scope.AuditRead)
  @ApiAnswer(AUDIT_EVENT_PAGE)
  @Get()
  async list(@Caller() principal: Principal, @Query() query: ListAuditEventsDto): Promise<AuditEventPage> {
    const events = await this.events.list({
      tenant: principal.tenantId,
      limit: query.limit,
      ...(query.before === undefined ? {} : { before: query.before }),
      ...(query.action === undefined ? {} : { action: query.action }),
      ...(query.principalId === undefined ? {} : { principalId: query.principalId }),
      ...(query.since === undefined ? {} : { since: new Date(query.since) }),
    });
    return {
      items: events.map((event) => ({ ...event, occurredAt: event.occurredAt.toISOString() })),
      next: events.length === query.limit ? (events[events.length - 1]?.id ?? null) : null,
    };
  }
}
