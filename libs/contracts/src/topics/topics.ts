import { DeadLetterV1 } from '../messages/dead-letter.message';
import { InboundMessageV1 } from '../messages/inbound-message.message';
import { MessageBatchV1 } from '../messages/message-batch.message';
import { MessageStatusV1 } from '../messages/message-status.message';
import { ProviderEventV1 } from '../messages/provider-event.message';
import { RunLifecycleV1 } from '../messages/run-lifecycle.message';
import { RunRequestedV1 } from '../messages/run-requested.message';
import { SendRequestV1 } from '../messages/send-request.message';
import { SubscriberAlertV1 } from '../messages/subscriber-alert.message';
import { WebhookDeliveryV1 } from '../messages/webhook-delivery.message';
import { defineTopic, type TopicDefinition } from './topic-definition';

/** Enough partitions for the expected consumer replicas (docs/architecture.md, Flow). */
export const DEFAULT_PARTITIONS = 12;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const Topics = {
  sendRequests: defineTopic({
    name: 'ums.campaign.send-requests.v1',
    value: SendRequestV1,
    keyOf: (v) => v.tenantId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description: 'Producers ask for a single send or a bulk campaign. Consumed by campaign-scheduler.',
  }),
  runRequested: defineTopic({
    name: 'ums.campaign.run-requested.v1',
    value: RunRequestedV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description: 'A run is due, resumed or retried after a stale checkpoint. Consumed by batch-expander.',
  }),
  runLifecycle: defineTopic({
    name: 'ums.campaign.lifecycle.v1',
    value: RunLifecycleV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description:
      'A run was scheduled, started, paused, resumed, stopped, completed, failed or retried, with its counters. For downstream services and webhook-dispatcher.',
    cloudEvent: {
      type: 'io.ums.campaign.lifecycle.v1',
      idField: 'eventId',
      subjectField: 'runId',
      timeField: 'occurredAt',
    },
  }),
  batches: defineTopic({
    name: 'ums.send.batches.v1',
    value: MessageBatchV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description: 'Campaign batches of about 100 recipients. Consumed by notification-sender.',
  }),
  prioritySends: defineTopic({
    name: 'ums.send.priority.v1',
    value: MessageBatchV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description:
      'Single/transactional sends; served before campaign batches. Consumed by notification-sender.',
  }),
  sendRetry5s: defineTopic({
    name: 'ums.send.retry-5s.v1',
    value: MessageBatchV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: DAY,
    delayMs: 5_000,
    description: 'Send items that failed retryably, retried after 5 s.',
  }),
  sendRetry30s: defineTopic({
    name: 'ums.send.retry-30s.v1',
    value: MessageBatchV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: DAY,
    delayMs: 30_000,
    description: 'Send items retried after 30 s.',
  }),
  sendRetry2m: defineTopic({
    name: 'ums.send.retry-2m.v1',
    value: MessageBatchV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: DAY,
    delayMs: 120_000,
    description: 'Send items retried after 2 min.',
  }),
  sendRetry10m: defineTopic({
    name: 'ums.send.retry-10m.v1',
    value: MessageBatchV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 2 * DAY,
    delayMs: 600_000,
    description: 'Send items retried after 10 min, the last tier before the dead-letter topic.',
  }),
  providerEvents: defineTopic({
    name: 'ums.provider.events.v1',
    value: ProviderEventV1,
    // Ordering matters per message (status moves forward) and per sender (inbound replies).
    keyOf: (v) => v.status?.messageId ?? v.status?.providerMessageId ?? v.inbound?.from ?? v.eventId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description:
      'Verified, normalized provider callbacks (statuses and inbound). Consumed by notification-sender.',
  }),
  messageStatus: defineTopic({
    name: 'ums.message.status.v1',
    value: MessageStatusV1,
    keyOf: (v) => v.campaignId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description: 'Every applied change of a message state. For downstream services and webhook-dispatcher.',
    cloudEvent: {
      type: 'io.ums.message.status.v1',
      idField: 'eventId',
      subjectField: 'messageId',
      timeField: 'occurredAt',
    },
  }),
  inboundMessages: defineTopic({
    name: 'ums.message.inbound.v1',
    value: InboundMessageV1,
    keyOf: (v) => `${v.credentialId}:${v.from}`,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description: 'Replies and new messages from recipients. For downstream services and webhook-dispatcher.',
    cloudEvent: { type: 'io.ums.message.inbound.v1', idField: 'eventId', timeField: 'occurredAt' },
  }),
  webhookDeliveries: defineTopic({
    name: 'ums.webhook.deliveries.v1',
    value: WebhookDeliveryV1,
    keyOf: (v) => v.subscriberId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 7 * DAY,
    description:
      'Subscriber deliveries to attempt now: replays and recovered deliveries. Its retry tiers are ums.webhook.retry-*. Consumed by webhook-dispatcher.',
  }),
  webhookRetry5s: defineTopic({
    name: 'ums.webhook.retry-5s.v1',
    value: WebhookDeliveryV1,
    keyOf: (v) => v.subscriberId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: DAY,
    delayMs: 5_000,
    description: 'Subscriber deliveries retried after 5 s.',
  }),
  webhookRetry30s: defineTopic({
    name: 'ums.webhook.retry-30s.v1',
    value: WebhookDeliveryV1,
    keyOf: (v) => v.subscriberId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: DAY,
    delayMs: 30_000,
    description: 'Subscriber deliveries retried after 30 s.',
  }),
  webhookRetry2m: defineTopic({
    name: 'ums.webhook.retry-2m.v1',
    value: WebhookDeliveryV1,
    keyOf: (v) => v.subscriberId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: DAY,
    delayMs: 120_000,
    description: 'Subscriber deliveries retried after 2 min.',
  }),
  webhookRetry10m: defineTopic({
    name: 'ums.webhook.retry-10m.v1',
    value: WebhookDeliveryV1,
    keyOf: (v) => v.subscriberId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 2 * DAY,
    delayMs: 600_000,
    description: 'Subscriber deliveries retried after 10 min.',
  }),
  webhookRetry1h: defineTopic({
    name: 'ums.webhook.retry-1h.v1',
    value: WebhookDeliveryV1,
    keyOf: (v) => v.subscriberId,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 3 * DAY,
    delayMs: HOUR,
    description: 'Subscriber deliveries retried after 1 h, the last tier before the dead-letter topic.',
  }),
  subscriberAlerts: defineTopic({
    name: 'ums.webhook.subscriber-alerts.v1',
    value: SubscriberAlertV1,
    keyOf: (v) => v.subscriberId,
    partitions: 3,
    retentionMs: 30 * DAY,
    description: 'A subscriber was tombstoned, disabled or resurrected.',
  }),
  deadLetters: defineTopic({
    name: 'ums.dead-letters.v1',
    value: DeadLetterV1,
    keyOf: (v) => v.key ?? v.sourceTopic,
    partitions: DEFAULT_PARTITIONS,
    retentionMs: 30 * DAY,
    description: 'Messages refused by their schema or out of retries, with their origin and reason.',
  }),
} as const;

export type TopicKey = keyof typeof Topics;

/** Every topic of the flow, for the topic-creation job and startup checks. */
export const AllTopics: readonly TopicDefinition<object>[] = Object.values(
  Topics,
) as TopicDefinition<object>[];

/** Delay tiers, shortest first: where a retryable failure waits before its next attempt. */
export const SendRetryTiers = [
  Topics.sendRetry5s,
  Topics.sendRetry30s,
  Topics.sendRetry2m,
  Topics.sendRetry10m,
] as const;
export const WebhookRetryTiers = [
  Topics.webhookRetry5s,
  Topics.webhookRetry30s,
  Topics.webhookRetry2m,
  Topics.webhookRetry10m,
  Topics.webhookRetry1h,
] as const;
