import { Module } from '@nestjs/common';
import { SendingModule } from '../sending/sending.module';
import { TwilioController } from './twilio.controller';
import { TwilioLookupService } from './twilio-lookup.service';
import { TwilioService } from './twilio.service';

/** Twilio Messages API stand-in. */
@Module({
  imports: [SendingModule],
  controllers: [TwilioController],
  providers: [TwilioService, TwilioLookupService],
})
export class TwilioModule {}
