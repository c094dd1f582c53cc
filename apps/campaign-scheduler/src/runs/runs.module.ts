import { Module } from '@nestjs/common';
import { RunRequestPublisher } from './run-request.publisher';
import { RunsController } from './runs.controller';
import { RunsRepository } from './runs.repository';
import { RunsService } from './runs.service';

/** Runs of campaigns: progress reads and operator actions (pause, resume, stop, cancel, retries). */
@Module({
  controllers: [RunsController],
  providers: [RunsRepository, RunsService, RunRequestPublisher],
  exports: [RunsRepository, RunsService, RunRequestPublisher],
})
export class RunsModule {}
