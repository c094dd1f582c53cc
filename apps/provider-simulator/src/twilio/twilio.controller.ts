import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TwilioService } from './twilio.service';

/** Twilio Programmable Messaging send route (form-encoded); the AccountSid picks the credential. */
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
