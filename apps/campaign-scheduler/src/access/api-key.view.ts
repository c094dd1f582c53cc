import type { ApiKeyRecord } from '@ums/platform';

/** An API key as the API shows it: never its token, never its hash. */
export interface ApiKeyView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly scopes: readonly string[];
  /** The token's recognisable start (`umsk_<id>_`), to match a key found in a log or a scanner's report. */
  readonly prefix: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
}

/** The answer to a create: the view and, this once, the token itself. */
export interface CreatedApiKeyView extends ApiKeyView {
  readonly key: string;
}

export function toApiKeyView(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    tenantId: record.tenantId,
    name: record.name,
    scopes: record.scopes,
    prefix: `umsk_${record.id.slice('key_'.length)}_`,
    createdBy: record.createdBy,
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}
