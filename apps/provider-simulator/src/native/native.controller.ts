import { Public } from '@ums/platform';
import { Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NativeLookupService } from './native-lookup.service';
import { NativeService } from './native.service';

/** The simulator's own bulk send and lookup routes (provider `simulator`, up to 1000 messages per request). */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('sim/v1')
export class NativeController {
  constructor(
    private readonly native: NativeService,
    private readonly lookups: NativeLookupService,
  ) {}

  @Post('messages')
  send(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.native.send(request, reply);
  }

  /** What the simulator recorded of up to 1000 of our message ids (status refresh). */
  @Post('messages/lookup')
  lookup(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.lookups.lookup(request, reply);
  }
}
