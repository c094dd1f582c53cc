import { Module } from '@nestjs/common';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { RecordsModule } from '../records/records.module';
import { StatsModule } from '../stats/stats.module';
import { SendGate } from './send-gate.service';

/** What every provider route shares: capacity, failures, latency, timeouts, counting, callbacks. */
@Module({
  imports: [CredentialsModule, StatsModule, CallbacksModule, RecordsModule],
  providers: [SendGate],
  exports: [SendGate, CredentialsModule, StatsModule, RecordsModule],
})
export class SendingModule {}
