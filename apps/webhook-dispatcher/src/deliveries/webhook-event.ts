import type { InboundMessageV1, MessageStatusV1, RunLifecycleV1 } from '@ums/contracts';
import { runWebhookEventType, type WebhookEventFacts } from '@ums/domain';
import type { RangeRecord } from '@ums/platform';

/** One consumed event, with the exact body subscribers get. */
export interface WebhookEvent {
  readonly eventId: string;
  readonly facts: WebhookEventFacts;
  readonly payload: string;
  readonly source: { readonly topic: string; readonly partition: number; readonly offset: string };
}

/** A status event as subscribers get it; the fan-out and a replay by time build the same body. */
export function statusWebhookEvent(m: RangeRecord<MessageStatusV1>): WebhookEvent {
  return {
    eventId: m.value.eventId,
    facts: { tenantId: m.value.tenantId, eventType: 'message.status', campaignId: m.value.campaignId },
    payload: JSON.stringify({ type: 'message.status', timestamp: m.value.occurredAt, data: m.value }),
    source: { topic: m.topic, partition: m.partition, offset: m.offset },
  };
}

/** An inbound message as subscribers get it. */
export function inboundWebhookEvent(m: RangeRecord<InboundMessageV1>): WebhookEvent {
  return {
    eventId: m.value.eventId,
    facts: { tenantId: m.value.tenantId, eventType: 'message.inbound' },
    payload: JSON.stringify({ type: 'message.inbound', timestamp: m.value.occurredAt, data: m.value }),
    source: { topic: m.topic, partition: m.partition, offset: m.offset },
  };
}

/** A run lifecycle event as subscribers get it: type `run.<event>` (run.started, run.completed, ...). */
export function lifecycleWebhookEvent(m: RangeRecord<RunLifecycleV1>): WebhookEvent {
  const type = runWebhookEventType(m.value.event);
  return {
    eventId: m.value.eventId,
    facts: { tenantId: m.value.tenantId, eventType: type, campaignId: m.value.campaignId },
    payload: JSON.stringify({ type, timestamp: m.value.occurredAt, data: m.value }),
    source: { topic: m.topic, partition: m.partition, offset: m.offset },
  };
}
