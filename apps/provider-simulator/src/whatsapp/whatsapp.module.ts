import { Module } from '@nestjs/common';
import { SendingModule } from '../sending/sending.module';
import { WhatsAppController } from './whatsapp.controller';
import { WhatsAppService } from './whatsapp.service';

/** WhatsApp Cloud API stand-in. */
@Module({
  imports: [SendingModule],
  controllers: [WhatsAppController],
  providers: [WhatsAppService],
})
export class WhatsAppModule {}
