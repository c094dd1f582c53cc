import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  CREDIT_LEDGER_PAGE,
  CREDIT_PRICE_VIEW,
  CREDIT_QUOTAS_UPDATE_VIEW,
  CREDIT_TOP_UP_VIEW,
  type CreditLedgerPage,
  type CreditPriceView,
  type CreditQuotasUpdateView,
  CreditErrorCode,
  CREDITS_VIEW,
  type CreditsView,
  type CreditTopUpView,
  HttpErrorCode,
  Scope,
} from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  Caller,
  describePrincipal,
  type Principal,
  Requires,
  requireTenant,
} from '@ums/platform';
import { CreditTopUpsService } from './credit-top-ups.service';
import {
  CreditChannelParamsDto,
  ListCreditLedgerDto,
  SetCreditPriceDto,
  SetCreditQuotasDto,
  TopUpCreditsDto,
} from './credits.dto';
import { CreditsService } from './credits.service';

/**
 * A tenant's credits: its balances, prices, quotas and ledger (credits:read, the caller's tenant), and
 * the operator's top-ups, prices and quotas (credits:admin, which only the operator key holds, acting
 * for the tenant named with X-Ums-Tenant).
 */
@Controller('v1/credits')
export class CreditsController {
  constructor(
    private readonly credits: CreditsService,
    private readonly topUps: CreditTopUpsService,
  ) {}

  /** Balance and price per channel, quotas and today's and this month's use (UTC). */
  @Requires(Scope.CreditsRead)
  @ApiAnswer(CREDITS_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired] })
  @Get()
  view(@Caller() principal: Principal): Promise<CreditsView> {
    return this.credits.view(requireTenant(principal));
  }

  /** Ledger entries, newest first (keyset on id: pass `next` as `before`). */
  @Requires(Scope.CreditsRead)
  @ApiAnswer(CREDIT_LEDGER_PAGE)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired] })
  @Get('ledger')
  ledger(@Caller() principal: Principal, @Query() query: ListCreditLedgerDto): Promise<CreditLedgerPage> {
    return this.credits.ledgerPage(requireTenant(principal), query);
  }

  /**
   * Adds credits to the tenant's channel account (created when missing) with a ledger entry, once per
   * reference: a repeated reference answers the first top-up. Then runs paused for want of credits on
   * the channel are resumed.
   */
  @Requires(Scope.CreditsAdmin)
  @ApiAnswer(CREDIT_TOP_UP_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired], 409: [CreditErrorCode.TopUpReferenceReused] })
  @Post('top-ups')
  @HttpCode(200)
  topUp(@Caller() principal: Principal, @Body() dto: TopUpCreditsDto): Promise<CreditTopUpView> {
    return this.topUps.topUp(requireTenant(principal), describePrincipal(principal), dto);
  }

  /** Credits per message (per segment on SMS) on the channel, or null: not metered. No ledger entry. */
  @Requires(Scope.CreditsAdmin)
  @ApiAnswer(CREDIT_PRICE_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired] })
  @Put('prices/:channel')
  setPrice(
    @Caller() principal: Principal,
    @Param() params: CreditChannelParamsDto,
    @Body() dto: SetCreditPriceDto,
  ): Promise<CreditPriceView> {
    return this.topUps.setPrice(requireTenant(principal), params.channel, dto.price);
  }

  /** Messages per UTC day and month across channels (left out: unchanged; null: no cap). */
  @Requires(Scope.CreditsAdmin)
  @ApiAnswer(CREDIT_QUOTAS_UPDATE_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired] })
  @Put('quotas')
  setQuotas(
    @Caller() principal: Principal,
    @Body() dto: SetCreditQuotasDto,
  ): Promise<CreditQuotasUpdateView> {
    return this.credits.setQuotas(requireTenant(principal), dto);
  }
}
