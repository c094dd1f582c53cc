import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, type Scope } from '@ums/contracts';
import {
  ApiKeysRepository,
  describePrincipal,
  ForbiddenError,
  InvalidInputError,
  newApiKeyToken,
  NotFoundError,
  type Principal,
  PrincipalResolver,
  requireTenant,
} from '@ums/platform';
import { ApiKeyErrorCode } from '@ums/contracts';
import type { CreateApiKeyDto } from './api-key.dto';
import { type ApiKeyView, type CreatedApiKeyView, toApiKeyView } from './api-key.view';

const MAX_LIFETIME_MS = 10 * 365 * 24 * 3_600_000;

/** Tenants' API keys: created (the token shown once), listed and revoked, within the caller's tenant. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly resolver: PrincipalResolver,
  ) {}

  async create(principal: Principal, dto: CreateApiKeyDto, now = new Date()): Promise<CreatedApiKeyView> {
    const tenantId = requireTenant(principal);
    // Left out: the caller's scopes a tenant key may hold (never the operator's own, e.g. credits:admin).
    const scopes = dto.scopes ?? ALL_SCOPES.filter((scope) => principal.scopes.has(scope));
    const beyond = scopes.filter((scope: Scope) => !principal.scopes.has(scope));
    if (beyond.length > 0) {
      throw new ForbiddenError(
        ApiKeyErrorCode.ScopeBeyondCaller,
        `A key cannot get scopes its creator lacks: ${beyond.join(', ')}`,
        {
          scopes: beyond,
        },
      );
    }
    const expiresAt = dto.expiresAt === undefined ? null : new Date(dto.expiresAt);
    if (
      expiresAt !== null &&
      (expiresAt.getTime() <= now.getTime() || expiresAt.getTime() - now.getTime() > MAX_LIFETIME_MS)
    ) {
      throw InvalidInputError.field(
        ApiKeyErrorCode.ExpiryInvalid,
        'expiresAt',
        'must be in the future and within 10 years',
      );
    }
    const token = newApiKeyToken();
    const record = await this.keys.insert({
      id: token.id,
      tenantId,
      name: dto.name,
      scopes,
      secretHash: token.secretHash,
      createdBy: describePrincipal(principal),
      expiresAt,
    });
    return { ...toApiKeyView(record), key: token.token };
  }

  async list(
    principal: Principal,
    limit: number,
    after?: string,
  ): Promise<{ items: ApiKeyView[]; next: string | null }> {
    const records = await this.keys.list(principal.tenantId, limit, after);
    return {
      items: records.map(toApiKeyView),
      next: records.length === limit ? (records[records.length - 1]?.id ?? null) : null,
    };
  }

  async get(principal: Principal, id: string): Promise<ApiKeyView> {
    const record = await this.keys.find(id, principal.tenantId);
    if (record === undefined) throw new NotFoundError(ApiKeyErrorCode.NotFound, `API key ${id} not found`);
    return toApiKeyView(record);
  }

  /** Revokes the key: this replica refuses it at once, the others within AUTH_KEY_CACHE_MS. */
  async revoke(principal: Principal, id: string): Promise<ApiKeyView> {
    if (!(await this.keys.revoke(id, principal.tenantId))) {
      throw new NotFoundError(ApiKeyErrorCode.NotFound, `API key ${id} not found`);
    }
    this.resolver.forget();
    return this.get(principal, id);
  }
}
