import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { StatusRefreshController } from './status-refresh.controller';
import { StatusRefreshRequestsRepository } from './status-refresh.repository';
import { StatusRefreshService } from './status-refresh.service';

/** Operators' status refresh requests for a run, and the run's unsettled counts. Needs StatusRefreshReadConfig. */
@Module({
  imports: [RunsModule],
  controllers: [StatusRefreshController],
  providers: [StatusRefreshRequestsRepository, StatusRefreshService],
})
export class StatusRefreshModule {}
