import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { Requires } from '@ums/platform';
import { CreateSubscriberDto, ListSubscribersDto, UpdateSubscriberDto } from './subscriber.dto';
import type { SubscriberPage, SubscriberView } from './subscriber.view';
import { SubscribersService } from './subscribers.service';

/** Webhook subscribers. The secret is in the answer of create and rotate-secret only. */
@Controller('v1/subscribers')
export class SubscribersController {
  constructor(private readonly subscribers: SubscribersService) {}

  @Requires(Scope.SubscribersWrite)
  @Post()
  create(@Body() dto: CreateSubscriberDto): Promise<SubscriberView> {
    return this.subscribers.create(dto);
  }

  @Requires(Scope.SubscribersRead)
  @Get()
  list(@Query() query: ListSubscribersDto): Promise<SubscriberPage> {
    return this.subscribers.list(query);
  }

  @Requires(Scope.SubscribersRead)
  @Get(':id')
  get(@Param('id') id: string): Promise<SubscriberView> {
    return this.subscribers.get(id);
  }

  @Requires(Scope.SubscribersWrite)
  @Patch(':id')
  update(@Param('id') id: string, @Body() dto: UpdateSubscriberDto): Promise<SubscriberView> {
    return this.subscribers.update(id, dto);
  }

  @Requires(Scope.SubscribersWrite)
  @Delete(':id')
  @HttpCode(204)
  delete(@Param('id') id: string): Promise<void> {
    return this.subscribers.delete(id);
  }

  @Requires(Scope.SubscribersWrite)
  @Post(':id/rotate-secret')
  @HttpCode(200)
  rotateSecret(@Param('id') id: string): Promise<SubscriberView> {
    return this.subscribers.rotateSecret(id);
  }
}
