import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { HttpErrorCode, Scope, SUBSCRIBER_PAGE, SUBSCRIBER_VIEW, SubscriberErrorCode } from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  Caller,
  Idempotent,
  type Principal,
  Requires,
  requireTenant,
} from '@ums/platform';
import { CreateSubscriberDto, ListSubscribersDto, UpdateSubscriberDto } from './subscriber.dto';
import type { SubscriberPage, SubscriberView } from './subscriber.view';
import { SubscribersService } from './subscribers.service';

/**
 * Webhook subscribers of the caller's tenant (an operator: every tenant's, or the one named by
 * X-Ums-Tenant). Another tenant's subscriber answers 404 like a missing one. The secret is in the
 * answer of create and rotate-secret only.
 */
@Controller('v1/subscribers')
export class SubscribersController {
  constructor(private readonly subscribers: SubscribersService) {}

  @Requires(Scope.SubscribersWrite)
  @ApiAnswer(SUBSCRIBER_VIEW)
  @ApiErrors({
    400: [SubscriberErrorCode.UrlRefused, HttpErrorCode.TenantRequired],
    403: [SubscriberErrorCode.InternalOperatorOnly],
    503: [SubscriberErrorCode.UrlUnresolved],
  })
  @Post()
  @Idempotent()
  create(@Caller() principal: Principal, @Body() dto: CreateSubscriberDto): Promise<SubscriberView> {
    return this.subscribers.create(requireTenant(principal), dto, principal.kind === 'operator');
  }

  @Requires(Scope.SubscribersRead)
  @ApiAnswer(SUBSCRIBER_PAGE)
  @Get()
  list(@Caller() principal: Principal, @Query() query: ListSubscribersDto): Promise<SubscriberPage> {
    return this.subscribers.list(principal.tenantId, query);
  }

  @Requires(Scope.SubscribersRead)
  @ApiAnswer(SUBSCRIBER_VIEW)
  @ApiErrors({ 404: [SubscriberErrorCode.NotFound] })
  @Get(':id')
  get(@Caller() principal: Principal, @Param('id') id: string): Promise<SubscriberView> {
    return this.subscribers.get(id, principal.tenantId);
  }

  @Requires(Scope.SubscribersWrite)
  @ApiAnswer(SUBSCRIBER_VIEW)
  @ApiErrors({
    400: [SubscriberErrorCode.UrlRefused],
    403: [SubscriberErrorCode.InternalOperatorOnly],
    404: [SubscriberErrorCode.NotFound],
    503: [SubscriberErrorCode.UrlUnresolved],
  })
  @Patch(':id')
  update(
    @Caller() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateSubscriberDto,
  ): Promise<SubscriberView> {
    return this.subscribers.update(id, principal.tenantId, dto, principal.kind === 'operator');
  }

  @Requires(Scope.SubscribersWrite)
  @ApiErrors({ 404: [SubscriberErrorCode.NotFound] })
  @Delete(':id')
  @HttpCode(204)
  delete(@Caller() principal: Principal, @Param('id') id: string): Promise<void> {
    return this.subscribers.delete(id, principal.tenantId);
  }

  @Requires(Scope.SubscribersWrite)
  @ApiAnswer(SUBSCRIBER_VIEW)
  @ApiErrors({ 404: [SubscriberErrorCode.NotFound] })
  @Post(':id/rotate-secret')
  @HttpCode(200)
  rotateSecret(@Caller() principal: Principal, @Param('id') id: string): Promise<SubscriberView> {
    return this.subscribers.rotateSecret(id, principal.tenantId);
  }
}
