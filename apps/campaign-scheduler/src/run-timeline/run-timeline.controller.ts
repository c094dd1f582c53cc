import { Controller, Get, Param } from '@nestjs/common';
import { RUN_TIMELINE_VIEW, RunErrorCode, type RunTimelineView, Scope } from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, type Principal, Requires } from '@ums/platform';
import { RunParams } from '../runs/runs.controller';
import { RunTimelineService } from './run-timeline.service';

/** A run's activity per second, for the operator console's charts of a run nobody watched live. */
@Controller('v1/campaigns/:campaignId/runs')
export class RunTimelineController {
  constructor(private readonly timelines: RunTimelineService) {}

  /**
   * The last 15 minutes of the run's activity, per second: how many of its messages reached each stage,
   * and its credential's rate limiter. 404 as for the run; 429 while the process has as many timeline
   * loads waiting as it allows.
   */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(RUN_TIMELINE_VIEW)
  @ApiErrors({ 404: [RunErrorCode.NotFound], 429: [RunErrorCode.TimelineBusy] })
  @Get(':runId/timeline')
  get(@Caller() principal: Principal, @Param() params: RunParams): Promise<RunTimelineView> {
    return this.timelines.timeline(principal.tenantId, params.campaignId, params.runId);
  }
}
