import { Public } from '@ums/platform';
import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WhatsAppService } from './whatsapp.service';

/** WhatsApp Cloud API send route; the path's phone number id picks the credential. */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller()
export class WhatsAppController {
  constructor(private readonly whatsapp: WhatsAppService) {}

  // Raw request and reply: the route answers in Meta's shapes, with no Nest pipes on the hot path.
  @Post(':apiVersion/:phoneNumberId/messages')
  send(
    @Param('phoneNumberId') phoneNumberId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.whatsapp.send(phoneNumberId, request, reply);
  }
}
