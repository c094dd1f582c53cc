import { Module } from '@nestjs/common';
import { RunEventsRelay } from './run-events-relay.service';
import { RunEventsRepository } from './run-events.repository';
import { RunRequestPublisher } from './run-request.publisher';
import { RunsController } from './runs.controller';
import { RunsRepository } from './runs.repository';
import { RunsService } from './runs.service';

/**
 * Runs of campaigns: progress reads, operator actions (pause, resume, stop, cancel, retries), and their
 * lifecycle events (history, and the outbox relay to ums.campaign.lifecycle.v1).
 */
@Module({
  controllers: [RunsController],
  providers: [RunsRepository, RunsService, RunRequestPublisher, RunEventsRepository, RunEventsRelay],
  exports: [RunsRepository, RunsService, RunRequestPublisher],
})
export class RunsModule {}
