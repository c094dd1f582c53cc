import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CreateSubscriberDto, ListSubscribersDto, UpdateSubscriberDto } from './subscriber.dto';
import type { SubscriberPage, SubscriberView } from './subscriber.view';
import { SubscribersService } from './subscribers.service';

/** Webhook subscribers. The secret is in the answer of create and rotate-secret only. */
@Controller('v1/subscribers')
export class SubscribersController {
  constructor(private readonly subscribers: SubscribersService) {}

  @Post()
  create(@Body() dto: CreateSubscriberDto): Promise<SubscriberView> {
    return this.subscribers.create(dto);
  }

  @Get()
  list(@Query() query: ListSubscribersDto): Promise<SubscriberPage> {
    return this.subscribers.list(query);
  }

  @Get(':id')
  get(@Param('id') id: string): Promise<SubscriberView> {
    return this.subscribers.get(id);
  }

  @Patch(':id')
  update(@Param('id') id: string, @Body() dto: UpdateSubscriberDto): Promise<SubscriberView> {
    return this.subscribers.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@Param('id') id: string): Promise<void> {
    return this.subscribers.delete(id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  rotateSecret(@Param('id') id: string): Promise<SubscriberView> {
    return this.subscribers.rotateSecret(id);
  }
}
