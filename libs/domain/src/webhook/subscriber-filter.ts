/** Event types a subscriber may ask for. */
export const WEBHOOK_EVENT_TYPES = ['message.status', 'message.inbound'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface SubscriberFilter {
  readonly tenantId: string;
  readonly eventTypes: readonly string[];
  /** Only this campaign's events (status events carry a campaign; inbound ones never match a filter). */
  readonly campaignId: string | null;
}

export interface WebhookEventFacts {
  readonly tenantId: string;
  readonly eventType: WebhookEventType;
  readonly campaignId?: string;
}

/** A subscriber sees only its tenant's events, of the types it chose, of its campaign when it set one. */
export function subscriberMatches(filter: SubscriberFilter, event: WebhookEventFacts): boolean {
  if (filter.tenantId !== event.tenantId) return false;
  if (!filter.eventTypes.includes(event.eventType)) return false;
  return filter.campaignId === null || filter.campaignId === event.campaignId;
}
