import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { RunErrorCode, Scope, STATUS_REFRESH_VIEW, type StatusRefreshView } from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, type Principal, Requires } from '@ums/platform';
import { RunParams } from '../runs/runs.controller';
import { StatusRefreshService } from './status-refresh.service';

/** Asking providers what became of a run's UNKNOWN messages and of SENT ones without a callback. */
@Controller('v1/campaigns/:campaignId/runs')
export class StatusRefreshController {
  constructor(private readonly refresh: StatusRefreshService) {}

  /**
   * Asks the senders to look up the run's UNKNOWN and SENT rows at their providers now (providers with
   * a status API); answers the counts at once, the request's figures grow as the senders settle rows.
   * Nothing is resent: rows the provider never received become FAILED not-received, for resend-unknown.
   * 404 for a missing run and for another tenant's alike.
   */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(STATUS_REFRESH_VIEW)
  @ApiErrors({ 404: [RunErrorCode.NotFound] })
  @Post(':runId/status-refresh')
  @HttpCode(202)
  request(@Caller() principal: Principal, @Param() params: RunParams): Promise<StatusRefreshView> {
    return this.refresh.request(
      principal.tenantId,
      params.campaignId,
      params.runId,
      `${principal.kind}:${principal.id}`,
    );
  }

  /** The run's unsettled rows and its latest status refresh; 404 as for the run. */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(STATUS_REFRESH_VIEW)
  @ApiErrors({ 404: [RunErrorCode.NotFound] })
  @Get(':runId/status-refresh')
  get(@Caller() principal: Principal, @Param() params: RunParams): Promise<StatusRefreshView> {
    return this.refresh.get(principal.tenantId, params.campaignId, params.runId);
  }
}
