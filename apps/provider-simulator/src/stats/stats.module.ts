import { Module } from '@nestjs/common';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { RecordsModule } from '../records/records.module';
import { StatsController } from './stats.controller';
import { StatsMetrics } from './stats.metrics';
import { StatsService } from './stats.service';

/** Send counts per credential and per message id, the busiest second, and their admin API. */
@Module({
  imports: [CredentialsModule, CallbacksModule, RecordsModule],
  controllers: [StatsController],
  providers: [StatsService, StatsMetrics],
  exports: [StatsService],
})
export class StatsModule {}
