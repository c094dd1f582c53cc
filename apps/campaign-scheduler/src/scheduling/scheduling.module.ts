import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { SchedulingMetrics } from './scheduling.metrics';
import { SchedulingRepository } from './scheduling.repository';
import { SchedulingService } from './scheduling.service';

/** Cron fires and due runs, published to the expanders. */
@Module({
  imports: [RunsModule],
  providers: [SchedulingRepository, SchedulingService, SchedulingMetrics],
  exports: [SchedulingService],
})
export class SchedulingModule {}
