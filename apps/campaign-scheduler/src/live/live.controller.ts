import { Controller, Get, Param, Res } from '@nestjs/common';
import {
  LIVE_CAMPAIGNS_FRAME,
  LiveErrorCode,
  RUN_SAMPLE,
  RUN_SAMPLE_HISTORY,
  RunErrorCode,
  Scope,
} from '@ums/contracts';
import { ApiErrors, ApiEventStream, Caller, type Principal, Requires } from '@ums/platform';
import type { FastifyReply } from 'fastify';
import { RunParams } from '../runs/runs.controller';
import { LiveService } from './live.service';

const LIMITS = [LiveErrorCode.ProcessLimitReached, LiveErrorCode.PrincipalLimitReached];

/**
 * Live streams (server-sent events) for the operator console: one frame a second, loaded once per second
 * and topic in the process whatever the number of consoles (LiveService). Refusals (401, 403, 404, 429)
 * are JSON answers, before the stream opens.
 */
@Controller('v1/live')
export class LiveController {
  constructor(private readonly live: LiveService) {}

  /** The caller's campaigns (an operator without X-Ums-Tenant: every tenant's), each second. */
  @Requires(Scope.CampaignsRead)
  @ApiEventStream(
    "`event: campaigns` each second: the caller's newest campaigns (the first page of `GET /v1/campaigns`, newest first) with each one's latest run",
    [{ name: 'campaigns', view: LIVE_CAMPAIGNS_FRAME }],
  )
  @ApiErrors({ 429: LIMITS })
  @Get('campaigns')
  campaigns(@Caller() principal: Principal, @Res() reply: FastifyReply): void {
    this.live.streamCampaigns(principal, reply);
  }

  /** A run: the samples kept (up to 15 min), then one sample each second; 404 when not the caller's. */
  @Requires(Scope.CampaignsRead)
  @ApiEventStream(
    "`event: history` first (the samples the service kept, up to 15 min, oldest first), then `event: sample` each second: the run's state, cumulative counters and its credential's last complete second",
    [
      { name: 'history', view: RUN_SAMPLE_HISTORY },
      { name: 'sample', view: RUN_SAMPLE },
    ],
  )
  @ApiErrors({ 404: [RunErrorCode.NotFound], 429: LIMITS })
  @Get('campaigns/:campaignId/runs/:runId')
  run(@Caller() principal: Principal, @Param() params: RunParams, @Res() reply: FastifyReply): Promise<void> {
    return this.live.streamRun(principal, params.campaignId, params.runId, reply);
  }
}
