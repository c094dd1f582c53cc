import type { SubscriberRecord, SubscriberState } from './subscriber.record';

/** A subscriber as the API shows it; the secret only once, on create and rotate. */
export interface SubscriberView {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly campaignId: string | null;
  readonly internal: boolean;
  readonly maxEventsPerRequest: number;
  readonly state: SubscriberState;
  readonly failuresInWindow?: number;
  readonly lastError: string | null;
  readonly lastSuccessAt: string | null;
  readonly lastFailureAt: string | null;
  readonly deadSince: string | null;
  readonly previousSecretExpiresAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly secret?: string;
}

export interface SubscriberPage {
  readonly items: readonly SubscriberView[];
  readonly nextAfter: string | null;
}

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
