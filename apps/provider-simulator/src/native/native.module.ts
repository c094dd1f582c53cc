import { Module } from '@nestjs/common';
import { SendingModule } from '../sending/sending.module';
import { NativeController } from './native.controller';
import { NativeLookupService } from './native-lookup.service';
import { NativeService } from './native.service';

/** The simulator's native bulk API. */
@Module({
  imports: [SendingModule],
  controllers: [NativeController],
  providers: [NativeService, NativeLookupService],
})
export class NativeModule {}
