import type { SubscriberView } from '@ums/contracts';
import type { SubscriberRecord } from './subscriber.record';

/** The API's subscriber views are shared with the operator CLI (libs/contracts/src/api). */
export type { SubscriberPage, SubscriberView } from '@ums/contracts';

export function toSubscriberView(
  record: SubscriberRecord,
  extra: { failuresInWindow?: number; secret?: string } = {},
): SubscriberView {
  return {
    id: record.id,
    tenantId: record.tenantId,
    url: record.url,
    eventTypes: record.eventTypes,
    campaignId: record.campaignId,
    internal: record.internal,
    maxEventsPerRequest: record.maxEventsPerRequest,
    state: record.state,
    ...(extra.failuresInWindow !== undefined ? { failuresInWindow: extra.failuresInWindow } : {}),
    lastError: record.lastError,
    lastSuccessAt: record.lastSuccessAt?.toISOString() ?? null,
    lastFailureAt: record.lastFailureAt?.toISOString() ?? null,
    deadSince: record.deadSince?.toISOString() ?? null,
    previousSecretExpiresAt: record.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    ...(extra.secret !== undefined ? { secret: extra.secret } : {}),
  };
}
