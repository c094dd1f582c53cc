import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { CREDENTIAL_PAGE, CREDENTIAL_VIEW, CredentialErrorCode, HttpErrorCode, Scope } from '@ums/contracts';
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
  constructor(private readonly credentials: CredentialsService) {}

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
