import { Module } from '@nestjs/common';
import { CredentialRateSecondsRepository } from '../credentials/credential-rate-seconds.repository';
import { RunTimelineController } from './run-timeline.controller';
import { RunTimelineRepository } from './run-timeline.repository';
import { RunTimelineService } from './run-timeline.service';

/** Run timelines: a run's activity per second from its messages' times and its credential's limiter. */
@Module({
  controllers: [RunTimelineController],
  providers: [RunTimelineRepository, RunTimelineService, CredentialRateSecondsRepository],
})
export class RunTimelineModule {}
