import { Public } from '@ums/platform';
import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MittoService } from './mitto.service';

/**
 * Mitto's SMS API: POST /sms (one message), POST /smsbulk (one text, several receivers) and our
 * status lookup GET /sms/status. Any other path (the former /sms/bulk included) is 404, as Mitto.
 */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller()
export class MittoController {
  constructor(private readonly mitto: MittoService) {}

  @Post('sms')
  send(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.mitto.send(request, reply, false);
  }

  @Post('smsbulk')
  sendBulk(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.mitto.send(request, reply, true);
  }

  @Get('sms/status')
  status(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.mitto.status(request, reply);
  }
}
