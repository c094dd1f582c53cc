import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  CampaignErrorCode,
  RUN_ACTION_RESULT,
  RUN_EVENT_LIST,
  RUN_LIST,
  RUN_VIEW,
  RunErrorCode,
  type RunEventView,
  Scope,
} from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, type Principal, Requires } from '@ums/platform';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';
import type { RunView } from './run.view';
import { RunAction, type RunActionResult, RunsService } from './runs.service';

export class RunParams {
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'campaignId must be a campaign id' })
  campaignId!: string;

  @Matches(/^\d{1,20}$/, { message: 'runId must be a decimal id' })
  runId!: string;
}

export class RunActionParams extends RunParams {
  @IsIn(Object.values(RunAction), { message: `action must be one of ${Object.values(RunAction).join(', ')}` })
  action!: RunAction;
}

export class CampaignParams {
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'campaignId must be a campaign id' })
  campaignId!: string;
}

export class ListRunsQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit = 50;
  @IsOptional() @Matches(/^\d{1,20}$/, { message: 'before must be a run id' }) before?: string;
}

export class RunEventsQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit = 100;
  @IsOptional() @Matches(/^\d{1,20}$/, { message: 'after must be an event id' }) after = '0';
}

/** Runs of the caller's tenant's campaigns (an operator without X-Ums-Tenant: every tenant's). */
@Controller('v1/campaigns/:campaignId/runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  /** The campaign's runs; 404 when the campaign is missing or another tenant's. */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(RUN_LIST)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound] })
  @Get()
  async list(
    @Caller() principal: Principal,
    @Param() params: CampaignParams,
    @Query() query: ListRunsQuery,
  ): Promise<{ items: RunView[] }> {
    return {
      items: await this.runs.list(principal.tenantId, params.campaignId, query.limit, query.before),
    };
  }

  @Requires(Scope.CampaignsRead)
  @ApiAnswer(RUN_VIEW)
  @ApiErrors({ 404: [RunErrorCode.NotFound] })
  @Get(':runId')
  get(@Caller() principal: Principal, @Param() params: RunParams): Promise<RunView> {
    return this.runs.get(principal.tenantId, params.campaignId, params.runId);
  }

  /**
   * The run's lifecycle events (scheduled, started, paused, ...), oldest first, after `after`: what
   * `ums.campaign.lifecycle.v1` carries, from the run's history. 404 as for the run.
   */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(RUN_EVENT_LIST)
  @ApiErrors({ 404: [RunErrorCode.NotFound] })
  @Get(':runId/events')
  async events(
    @Caller() principal: Principal,
    @Param() params: RunParams,
    @Query() query: RunEventsQuery,
  ): Promise<{ items: RunEventView[] }> {
    return {
      items: await this.runs.history(
        principal.tenantId,
        params.campaignId,
        params.runId,
        query.after,
        query.limit,
      ),
    };
  }

  /** pause, resume, stop, cancel (a run not started yet), retry-failed, resend-unknown. */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(RUN_ACTION_RESULT)
  @ApiErrors({
    404: [CampaignErrorCode.NotFound, RunErrorCode.NotFound],
    409: [CampaignErrorCode.TransitionRefused, RunErrorCode.TransitionRefused, RunErrorCode.Archived],
  })
  @Post(':runId/:action')
  @HttpCode(200)
  act(@Caller() principal: Principal, @Param() params: RunActionParams): Promise<RunActionResult> {
    return this.runs.act(principal.tenantId, params.campaignId, params.runId, params.action);
  }
}
