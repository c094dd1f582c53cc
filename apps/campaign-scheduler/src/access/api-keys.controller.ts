import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import {
  API_KEY_PAGE,
  API_KEY_VIEW,
  ApiKeyErrorCode,
  CREATED_API_KEY_VIEW,
  HttpErrorCode,
  Scope,
} from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, Idempotent, type Principal, Requires } from '@ums/platform';
import { ApiKeyParamsDto, CreateApiKeyDto, ListApiKeysDto } from './api-key.dto';
import type { ApiKeyView, CreatedApiKeyView } from './api-key.view';
import { ApiKeysService } from './api-keys.service';

/** API keys of the caller's tenant (the operator: of the X-Ums-Tenant tenant, or all for reads). */
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** The answer carries the key's token this once; only its hash is stored. */
  @Requires(Scope.ApiKeysWrite)
  @ApiAnswer(CREATED_API_KEY_VIEW)
  @ApiErrors({
    400: [ApiKeyErrorCode.ExpiryInvalid, HttpErrorCode.TenantRequired],
    403: [ApiKeyErrorCode.ScopeBeyondCaller],
  })
  @Post()
  @Idempotent()
  create(@Caller() principal: Principal, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    return this.keys.create(principal, dto);
  }

  @Requires(Scope.ApiKeysRead)
  @ApiAnswer(API_KEY_PAGE)
  @Get()
  list(
    @Caller() principal: Principal,
    @Query() query: ListApiKeysDto,
  ): Promise<{ items: ApiKeyView[]; next: string | null }> {
    return this.keys.list(principal, query.limit, query.after);
  }

  @Requires(Scope.ApiKeysRead)
  @ApiAnswer(API_KEY_VIEW)
  @ApiErrors({ 404: [ApiKeyErrorCode.NotFound] })
  @Get(':id')
  get(@Caller() principal: Principal, @Param() params: ApiKeyParamsDto): Promise<ApiKeyView> {
    return this.keys.get(principal, params.id);
  }

  /** Revokes the key (kept, for the audit trail): it stops working on every replica within seconds. */
  @Requires(Scope.ApiKeysWrite)
  @ApiAnswer(API_KEY_VIEW)
  @ApiErrors({ 404: [ApiKeyErrorCode.NotFound] })
  @Delete(':id')
  revoke(@Caller() principal: Principal, @Param() params: ApiKeyParamsDto): Promise<ApiKeyView> {
    return this.keys.revoke(principal, params.id);
  }
}
