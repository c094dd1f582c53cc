import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { Public } from '@ums/platform';
import { InboundReplyDto } from './inbound.dto';
import { type InboundDelivery, InboundService } from './inbound.service';

/** Admin API: make a simulated recipient reply (tests and the demo drive inbound messages here). */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('_sim/credentials/:credentialId/inbound')
export class InboundController {
  constructor(private readonly inbound: InboundService) {}

  @Post()
  @HttpCode(200)
  deliver(
    @Param('credentialId') credentialId: string,
    @Body() reply: InboundReplyDto,
  ): Promise<InboundDelivery> {
    return this.inbound.deliver(credentialId, reply);
  }
}
