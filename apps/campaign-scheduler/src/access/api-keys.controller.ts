import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { Caller, type Principal, Requires } from '@ums/platform';
import { ApiKeyParamsDto, CreateApiKeyDto, ListApiKeysDto } from './api-key.dto';
import type { ApiKeyView, CreatedApiKeyView } from './api-key.view';
import { ApiKeysService } from './api-keys.service';

/** API keys of the caller's tenant (the operator: of the X-Ums-Tenant tenant, or all for reads). */
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** The answer carries the key's token this once; only its hash is stored. */
  @Requires(Scope.ApiKeysWrite)
  @Post()
  create(@Caller() principal: Principal, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    return this.keys.create(principal, dto);
  }

  @Requires(Scope.ApiKeysRead)
  @Get()
  list(
    @Caller() principal: Principal,
    @Query() query: ListApiKeysDto,
  ): Promise<{ items: ApiKeyView[]; next: string | null }> {
    return this.keys.list(principal, query.limit, query.after);
  }

  @Requires(Scope.ApiKeysRead)
  @Get(':id')
  get(@Caller() principal: Principal, @Param() params: ApiKeyParamsDto): Promise<ApiKeyView> {
    return this.keys.get(principal, params.id);
  }

  /** Revokes the key (kept, for the audit trail): it stops working on every replica within seconds. */
  @Requires(Scope.ApiKeysWrite)
  @Delete(':id')
  revoke(@Caller() principal: Principal, @Param() params: ApiKeyParamsDto): Promise<ApiKeyView> {
    return this.keys.revoke(principal, params.id);
  }
}
