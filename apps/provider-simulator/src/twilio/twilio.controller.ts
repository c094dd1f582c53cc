import { Public } from '@ums/platform';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TwilioLookupService } from './twilio-lookup.service';
import { TwilioService } from './twilio.service';

/** Twilio Programmable Messaging send route (form-encoded; the AccountSid picks the credential) and Message reads. */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('2010-04-01/Accounts')
export class TwilioController {
  constructor(
    private readonly twilio: TwilioService,
    private readonly lookups: TwilioLookupService,
  ) {}

  @Post(':accountSid/Messages.json')
  send(
    @Param('accountSid') accountSid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.twilio.send(accountSid, request, reply);
  }

  /** The account's messages, filtered by To, From and DateSent, newest first, paged. */
  @Get(':accountSid/Messages.json')
  list(
    @Param('accountSid') accountSid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): void {
    this.lookups.list(accountSid, request, reply);
  }

  /** One Message resource by its SID. */
  @Get(':accountSid/Messages/:sid.json')
  fetch(
    @Param('accountSid') accountSid: string,
    @Param('sid') sid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): void {
    this.lookups.fetch(accountSid, sid, request, reply);
  }
}
