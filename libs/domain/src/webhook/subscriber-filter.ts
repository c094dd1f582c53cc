import { RunLifecycleEvent } from '@ums/contracts';

/** A run lifecycle event as subscribers ask for it: `run.started`, `run.completed`, ... */
export type RunWebhookEventType = `run.${RunLifecycleEvent}`;

export function runWebhookEventType(event: RunLifecycleEvent): RunWebhookEventType {
  return `run.${event}`;
}

/** Run lifecycle event types, one per RunLifecycleEvent. */
export const RUN_WEBHOOK_EVENT_TYPES: readonly RunWebhookEventType[] =
  Object.values(RunLifecycleEvent).map(runWebhookEventType);

export type WebhookEventType = 'message.status' | 'message.inbound' | RunWebhookEventType;

/** Event types a subscriber may ask for; it gets only those it names (no type is implied). */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  'message.status',
  'message.inbound',
  ...RUN_WEBHOOK_EVENT_TYPES,
];

export interface SubscriberFilter {
  readonly tenantId: string;
  readonly eventTypes: readonly string[];
  /** Only this campaign's events (status and run events carry a campaign; inbound ones never match a filter). */
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
