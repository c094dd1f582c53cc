import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  CREDENTIAL_PAGE,
  CREDENTIAL_RATE_VIEW,
  CREDENTIAL_VIEW,
  CredentialErrorCode,
  type CredentialRateView,
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
import { CreateCredentialDto } from './create-credential.dto';
import { CredentialRateQueryDto } from './credential-rate.dto';
import { CredentialRateService } from './credential-rate.service';
import type { CredentialPage, CredentialView } from './credential.view';
import { CredentialsService } from './credentials.service';
import { ListCredentialsDto } from './list-credentials.dto';
import { UpdateCredentialDto } from './update-credential.dto';

/**
 * Provider accounts of the caller's tenant (an operator without X-Ums-Tenant reads every tenant's).
 * Responses say whether a secret is stored (`hasSecret`), never what it is; another tenant's
 * credential answers 404 exactly like a missing one.
 */
@Controller('v1/credentials')
export class CredentialsController {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly rates: CredentialRateService,
  ) {}

  /** Created for the principal's tenant (an operator names it with X-Ums-Tenant). */
  @Requires(Scope.CredentialsWrite)
  @ApiAnswer(CREDENTIAL_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired] })
  @Post()
  @Idempotent()
  create(@Caller() principal: Principal, @Body() dto: CreateCredentialDto): Promise<CredentialView> {
    return this.credentials.create(requireTenant(principal), dto);
  }

  @Requires(Scope.CredentialsRead)
  @ApiAnswer(CREDENTIAL_PAGE)
  @Get()
  list(@Caller() principal: Principal, @Query() query: ListCredentialsDto): Promise<CredentialPage> {
    return this.credentials.list(principal.tenantId, query);
  }

  @Requires(Scope.CredentialsRead)
  @ApiAnswer(CREDENTIAL_VIEW)
  @ApiErrors({ 404: [CredentialErrorCode.NotFound] })
  @Get(':id')
  get(@Caller() principal: Principal, @Param('id') id: string): Promise<CredentialView> {
    return this.credentials.get(principal.tenantId, id);
  }

  /**
   * What the credential's rate limiter did per second (every sender replica together): the last
   * `seconds` complete seconds, the newest rate and the congestion events of the last 24 hours.
   */
  @Requires(Scope.CredentialsRead)
  @ApiAnswer(CREDENTIAL_RATE_VIEW)
  @ApiErrors({ 404: [CredentialErrorCode.NotFound] })
  @Get(':id/rate')
  rate(
    @Caller() principal: Principal,
    @Param('id') id: string,
    @Query() query: CredentialRateQueryDto,
  ): Promise<CredentialRateView> {
    return this.rates.rate(principal.tenantId, id, query.seconds);
  }

  @Requires(Scope.CredentialsWrite)
  @ApiAnswer(CREDENTIAL_VIEW)
  @ApiErrors({ 404: [CredentialErrorCode.NotFound] })
  @Patch(':id')
  update(
    @Caller() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateCredentialDto,
  ): Promise<CredentialView> {
    return this.credentials.update(principal.tenantId, id, dto);
  }
}
