import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { RecordsModule } from '../records/records.module';
import { CallbackDispatcher } from './callback-dispatcher.service';
import { CallbacksMetrics } from './callbacks.metrics';

/** Status callbacks of accepted sends, in each provider's webhook shape and signature. */
@Module({
  imports: [CredentialsModule, RecordsModule],
  providers: [CallbackDispatcher, CallbacksMetrics],
  exports: [CallbackDispatcher],
})
export class CallbacksModule {}
