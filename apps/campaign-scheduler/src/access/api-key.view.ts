import type { ApiKeyView } from '@ums/contracts';
import type { ApiKeyRecord } from '@ums/platform';

/** The API's key views are shared with the operator CLI (libs/contracts/src/api). */
export type { ApiKeyView, CreatedApiKeyView } from '@ums/contracts';

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
