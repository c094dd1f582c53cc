import { Module } from '@nestjs/common';
import { RunTimelineController } from './run-timeline.controller';
import { RunTimelineRepository } from './run-timeline.repository';
import { RunTimelineService } from './run-timeline.service';

/** Run timelines: a run's activity per second from its messages' times and its credential's limiter. */
@Module({
  controllers: [RunTimelineController],
  providers: [RunTimelineRepository, RunTimelineService],
})
export class RunTimelineModule {}
