import { Public } from '@ums/platform';
import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TwilioService } from './twilio.service';

/** Twilio Programmable Messaging send route (form-encoded); the AccountSid picks the credential. */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('2010-04-01/Accounts')
export class TwilioController {
  constructor(private readonly twilio: TwilioService) {}

  @Post(':accountSid/Messages.json')
  send(
    @Param('accountSid') accountSid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.twilio.send(accountSid, request, reply);
  }
}
