import { Public } from '@ums/platform';
import { Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SesService } from './ses.service';

/** SES v2 SendEmail route; the sender address (and SigV4 region) pick the credential. */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('v2/email')
export class SesController {
  constructor(private readonly ses: SesService) {}

  @Post('outbound-emails')
  send(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.ses.send(request, reply);
  }
}
