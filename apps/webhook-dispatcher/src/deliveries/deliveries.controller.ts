import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  DELIVERY_PAGE,
  DELIVERY_VIEW,
  DeliveryErrorCode,
  REPLAY_COUNT_VIEW,
  SUBSCRIBER_VIEW,
  Scope,
  SubscriberErrorCode,
} from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, type Principal, Requires } from '@ums/platform';
import { toSubscriberView, type SubscriberView } from '../subscribers/subscriber.view';
import { DeliveriesService, type DeliveryView } from './deliveries.service';
import { ListDeliveriesDto, ReplaySinceDto } from './delivery.dto';
import { ResurrectService } from './resurrect.service';

/**
 * A subscriber's deliveries, replays, and resurrecting a dead subscriber: the caller's tenant's
 * subscribers only (another tenant's answers 404 like a missing one).
 */
@Controller('v1/subscribers/:id')
export class DeliveriesController {
  constructor(
    private readonly deliveries: DeliveriesService,
    private readonly resurrection: ResurrectService,
  ) {}

  @Requires(Scope.SubscribersRead)
  @ApiAnswer(DELIVERY_PAGE)
  @ApiErrors({ 404: [SubscriberErrorCode.NotFound] })
  @Get('deliveries')
  list(
    @Caller() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListDeliveriesDto,
  ): Promise<{ items: DeliveryView[]; nextBefore: string | null }> {
    return this.deliveries.list(id, principal.tenantId, query);
  }

  @Requires(Scope.SubscribersWrite)
  @ApiAnswer(DELIVERY_VIEW)
  @ApiErrors({
    404: [SubscriberErrorCode.NotFound, DeliveryErrorCode.NotFound],
    409: [SubscriberErrorCode.NotAlive, DeliveryErrorCode.NotSettled],
  })
  @Post('deliveries/:deliveryId/replay')
  @HttpCode(202)
  replayOne(
    @Caller() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryView> {
    return this.deliveries.replayOne(id, principal.tenantId, deliveryId);
  }

  @Requires(Scope.SubscribersWrite)
  @ApiAnswer(REPLAY_COUNT_VIEW)
  @ApiErrors({
    404: [SubscriberErrorCode.NotFound],
    409: [SubscriberErrorCode.NotAlive],
    503: [DeliveryErrorCode.ReplayBusy],
  })
  @Post('replay')
  @HttpCode(202)
  replaySince(
    @Caller() principal: Principal,
    @Param('id') id: string,
    @Body() dto: ReplaySinceDto,
  ): Promise<{ replayed: number }> {
    return this.deliveries.replaySince(id, principal.tenantId, new Date(dto.since));
  }

  /** 202: the subscriber is REPLAYING; it turns ALIVE once everything it missed was delivered in order. */
  @Requires(Scope.SubscribersWrite)
  @ApiAnswer(SUBSCRIBER_VIEW)
  @ApiErrors({ 404: [SubscriberErrorCode.NotFound], 409: [SubscriberErrorCode.NotDead] })
  @Post('resurrect')
  @HttpCode(202)
  async resurrect(@Caller() principal: Principal, @Param('id') id: string): Promise<SubscriberView> {
    return toSubscriberView(await this.resurrection.resurrect(id, principal.tenantId));
  }
}
