import { Module } from '@nestjs/common';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { StatsModule } from '../stats/stats.module';
import { SendGate } from './send-gate.service';

/** What every provider route shares: capacity, failures, latency, timeouts, counting, callbacks. */
@Module({
  imports: [CredentialsModule, StatsModule, CallbacksModule],
  providers: [SendGate],
  exports: [SendGate, CredentialsModule, StatsModule],
})
export class SendingModule {}
