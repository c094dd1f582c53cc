import { Module } from '@nestjs/common';
import { SendingModule } from '../sending/sending.module';
import { SesController } from './ses.controller';
import { SesService } from './ses.service';

/** Amazon SES v2 stand-in (no status callbacks: SES reports through SNS). */
@Module({
  imports: [SendingModule],
  controllers: [SesController],
  providers: [SesService],
})
export class SesModule {}
