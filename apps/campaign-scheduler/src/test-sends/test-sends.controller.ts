import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  CampaignErrorCode,
  HttpErrorCode,
  Scope,
  SendOutcomeCode,
  TEST_SEND_PAGE,
  TEST_SEND_VIEW,
  type TestSendPage,
  type TestSendView,
} from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  Caller,
  describePrincipal,
  IdempotencyKey,
  Idempotent,
  type Principal,
  Requires,
  requireTenant,
} from '@ums/platform';
import { requestIdOf } from '../send-requests/sends.controller';
import {
  CreateTestSendDto,
  ListTestSendsQuery,
  TestSendCampaignParams,
  TestSendParams,
} from './test-sends.dto';
import { TestSendsService } from './test-sends.service';

/**
 * Test sends of a campaign: its content to a few given recipients on the priority lane, before it
 * starts (or while it runs), with each recipient's result. The tenant is the caller's.
 */
@Controller('v1/campaigns/:campaignId/test-sends')
export class TestSendsController {
  constructor(private readonly testSends: TestSendsService) {}

  /** Answered once the messages are stored and published: each recipient PENDING (or SKIPPED: opted out). */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(TEST_SEND_VIEW)
  @ApiErrors({
    400: [
      CampaignErrorCode.TestSendRecipientsInvalid,
      SendOutcomeCode.VariablesMissing,
      HttpErrorCode.TenantRequired,
    ],
    404: [CampaignErrorCode.NotFound],
    409: [
      CampaignErrorCode.TestSendCampaignArchived,
      CampaignErrorCode.TemplateUnusable,
      CampaignErrorCode.DefaultCountryInvalid,
    ],
    429: [CampaignErrorCode.TestSendRateLimited],
  })
  @Post()
  @HttpCode(202)
  @Idempotent()
  create(
    @Caller() principal: Principal,
    @IdempotencyKey() key: string | undefined,
    @Param() params: TestSendCampaignParams,
    @Body() dto: CreateTestSendDto,
  ): Promise<TestSendView> {
    return this.testSends.create({
      ...dto,
      tenantId: requireTenant(principal),
      campaignId: params.campaignId,
      // test_sends.actor is VARCHAR(128); a JWT subject may be longer.
      actor: describePrincipal(principal).slice(0, 128),
      requestId: key === undefined ? null : requestIdOf(key),
    });
  }

  /** Newest first, with each recipient's current result. */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(TEST_SEND_PAGE)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound] })
  @Get()
  list(
    @Caller() principal: Principal,
    @Param() params: TestSendCampaignParams,
    @Query() query: ListTestSendsQuery,
  ): Promise<TestSendPage> {
    return this.testSends.list(params.campaignId, principal.tenantId, query.limit, query.after);
  }

  /** One test send with each recipient's message: state, error, times. */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(TEST_SEND_VIEW)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound, CampaignErrorCode.TestSendNotFound] })
  @Get(':testSendId')
  get(@Caller() principal: Principal, @Param() params: TestSendParams): Promise<TestSendView> {
    return this.testSends.get(params.campaignId, params.testSendId, principal.tenantId);
  }
}
