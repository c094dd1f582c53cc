import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { Caller, type Principal, Requires } from '@ums/platform';
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

/** Runs of the caller's tenant's campaigns (an operator without X-Ums-Tenant: every tenant's). */
@Controller('v1/campaigns/:campaignId/runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  /** The campaign's runs; 404 when the campaign is missing or another tenant's. */
  @Requires(Scope.CampaignsRead)
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
  @Get(':runId')
  get(@Caller() principal: Principal, @Param() params: RunParams): Promise<RunView> {
    return this.runs.get(principal.tenantId, params.campaignId, params.runId);
  }

  /** pause, resume, stop, cancel (a run not started yet), retry-failed, resend-unknown. */
  @Requires(Scope.CampaignsWrite)
  @Post(':runId/:action')
  @HttpCode(200)
  act(@Caller() principal: Principal, @Param() params: RunActionParams): Promise<RunActionResult> {
    return this.runs.act(principal.tenantId, params.campaignId, params.runId, params.action);
  }
}
