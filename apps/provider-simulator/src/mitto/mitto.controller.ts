import { Public } from '@ums/platform';
import { Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MittoService } from './mitto.service';

/** Mitto-style bulk SMS route (up to 1000 messages per request). */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('sms')
export class MittoController {
  constructor(private readonly mitto: MittoService) {}

  @Post('bulk')
  send(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.mitto.send(request, reply);
  }
}
