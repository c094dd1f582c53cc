import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  CAMPAIGN_DETAIL_VIEW,
  CAMPAIGN_LIST,
  CAMPAIGN_VIEW,
  CampaignErrorCode,
  CredentialErrorCode,
  HttpErrorCode,
  Scope,
} from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  Caller,
  Idempotent,
  type Principal,
  Requires,
  requireTenant,
} from '@ums/platform';
import { Matches } from 'class-validator';
import type { CampaignDetailView, CampaignView } from './campaign.view';
import { CampaignsService } from './campaigns.service';
import { CampaignActionParams, CreateCampaignDto, ListCampaignsQuery } from './create-campaign.dto';
import { UpdateCampaignDto } from './update-campaign.dto';

export class CampaignIdParams {
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'campaignId must be a campaign id' })
  campaignId!: string;
}

/** Campaigns of the caller's tenant; an operator without X-Ums-Tenant reads and acts across tenants. */
@Controller('v1/campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(CAMPAIGN_VIEW)
  @ApiErrors({
    400: [
      CampaignErrorCode.ScheduleInvalid,
      CampaignErrorCode.TemplateInvalid,
      CredentialErrorCode.NotFound,
      CredentialErrorCode.ChannelMismatch,
      HttpErrorCode.TenantRequired,
    ],
  })
  @Post()
  @Idempotent()
  create(@Caller() principal: Principal, @Body() dto: CreateCampaignDto): Promise<CampaignView> {
    return this.campaigns.createFromApi({ ...dto, tenantId: requireTenant(principal) });
  }

  @Requires(Scope.CampaignsRead)
  @ApiAnswer(CAMPAIGN_LIST)
  @Get()
  async list(
    @Caller() principal: Principal,
    @Query() query: ListCampaignsQuery,
  ): Promise<{ items: CampaignView[] }> {
    return { items: await this.campaigns.list(principal.tenantId, query.limit, query.after) };
  }

  /** The campaign with its audience size and its latest runs (state and progress counters). */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(CAMPAIGN_DETAIL_VIEW)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound] })
  @Get(':campaignId')
  get(@Caller() principal: Principal, @Param() params: CampaignIdParams): Promise<CampaignDetailView> {
    return this.campaigns.get(params.campaignId, principal.tenantId);
  }

  /** Changes the fields given (priority); the campaign with its audience size and latest runs. */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(CAMPAIGN_DETAIL_VIEW)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound] })
  @Patch(':campaignId')
  update(
    @Caller() principal: Principal,
    @Param() params: CampaignIdParams,
    @Body() dto: UpdateCampaignDto,
  ): Promise<CampaignDetailView> {
    return this.campaigns.update(params.campaignId, dto, principal.tenantId);
  }

  /** start, pause, resume, stop, archive. */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(CAMPAIGN_DETAIL_VIEW)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound], 409: [CampaignErrorCode.TransitionRefused] })
  @Post(':campaignId/:action')
  @HttpCode(200)
  act(@Caller() principal: Principal, @Param() params: CampaignActionParams): Promise<CampaignDetailView> {
    return this.campaigns.act(params.campaignId, params.action, principal.tenantId);
  }
}
