import { Module } from '@nestjs/common';
import { SendingModule } from '../sending/sending.module';
import { MittoController } from './mitto.controller';
import { MittoService } from './mitto.service';

/** Mitto SMS stand-in. */
@Module({
  imports: [SendingModule],
  controllers: [MittoController],
  providers: [MittoService],
})
export class MittoModule {}
