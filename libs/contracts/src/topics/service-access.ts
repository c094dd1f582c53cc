import type { TopicDefinition } from './topic-definition';
import { AllTopics, SendRetryTiers, Topics, WebhookRetryTiers } from './topics';

/** The services that talk to Kafka, by their deployment names. */
export type KafkaService =
  'campaign-scheduler' | 'batch-expander' | 'notification-sender' | 'webhook-ingest' | 'webhook-dispatcher';

/** Consumer group ids, logical (KAFKA_NAMESPACE prefixes them). The handlers use these constants. */
export const ConsumerGroups = {
  schedulerSendRequests: 'campaign-scheduler.send-requests',
  schedulerDeadLetters: 'campaign-scheduler.dead-letters',
  expander: 'batch-expander',
  sender: 'notification-sender',
  senderPriority: 'notification-sender.priority',
  senderStatus: 'notification-sender.status',
  dispatcherStatus: 'webhook-dispatcher.status',
  dispatcherInbound: 'webhook-dispatcher.inbound',
  dispatcherLifecycle: 'webhook-dispatcher.lifecycle',
  dispatcherDeliveries: 'webhook-dispatcher.deliveries',
  /** Replays by time: reads the status, inbound and lifecycle topics from a time, one replay at a time. */
  dispatcherReplay: 'webhook-dispatcher.replay',
} as const;

/** The group that reads a handler's retry tiers, beside the handler's own group on the main topic. */
export function retryGroupOf(groupId: string): string {
  return `${groupId}.retry`;
}

/** A topic of any value type: only names are read here. */
export type TopicRef = Pick<TopicDefinition<object>, 'name'>;

/** One handler registration: its group, the topic it reads and the retry tiers its failures go to. */
export interface ConsumerContract {
  readonly groupId: string;
  readonly topic: TopicRef;
  readonly retryTiers?: readonly TopicRef[];
  /** False when another registration's retry group reads the tiers (the sender's priority lane). */
  readonly consumesRetryTiers?: boolean;
}

/** A topic read by range outside the handlers (a replay by time), in its own consumer group. */
export interface RangeReadContract {
  readonly groupId: string;
  readonly topics: readonly TopicRef[];
}

/**
 * What a service does on Kafka: the handlers it registers and the topics its own code publishes to.
 * Writes the platform makes for a consumer (retry tiers, dead letters) are derived by `kafkaAccessOf`.
 * Kubernetes ACLs (k8s/components/strimzi) are generated from this; a unit test checks it against the
 * handlers' `@ConsumeTopic` registrations and the services' publish calls.
 */
export interface ServiceKafkaContract {
  readonly consumers: readonly ConsumerContract[];
  readonly produces: readonly TopicRef[];
  /** Topics it reads by range outside its handlers. */
  readonly rangeReads?: readonly RangeReadContract[];
}

export const ServiceKafkaContracts: Readonly<Record<KafkaService, ServiceKafkaContract>> = {
  'campaign-scheduler': {
    consumers: [
      { groupId: ConsumerGroups.schedulerSendRequests, topic: Topics.sendRequests },
      { groupId: ConsumerGroups.schedulerDeadLetters, topic: Topics.deadLetters },
    ],
    // Dead-letter replay publishes a message back to the topic it came from: any topic but the DLQ.
    // Run lifecycle events are relayed from the run_events outbox (the expander's transitions too).
    produces: AllTopics.filter((t) => t !== Topics.deadLetters),
  },
  'batch-expander': {
    consumers: [{ groupId: ConsumerGroups.expander, topic: Topics.runRequested }],
    produces: [Topics.batches, Topics.runRequested],
  },
  'notification-sender': {
    consumers: [
      { groupId: ConsumerGroups.sender, topic: Topics.batches, retryTiers: SendRetryTiers },
      {
        groupId: ConsumerGroups.senderPriority,
        topic: Topics.prioritySends,
        retryTiers: SendRetryTiers,
        consumesRetryTiers: false,
      },
      { groupId: ConsumerGroups.senderStatus, topic: Topics.providerEvents },
    ],
    produces: [...SendRetryTiers, Topics.messageStatus, Topics.inboundMessages, Topics.deadLetters],
  },
  'webhook-ingest': {
    consumers: [],
    produces: [Topics.providerEvents],
  },
  'webhook-dispatcher': {
    consumers: [
      { groupId: ConsumerGroups.dispatcherStatus, topic: Topics.messageStatus },
      { groupId: ConsumerGroups.dispatcherInbound, topic: Topics.inboundMessages },
      { groupId: ConsumerGroups.dispatcherLifecycle, topic: Topics.runLifecycle },
      {
        groupId: ConsumerGroups.dispatcherDeliveries,
        topic: Topics.webhookDeliveries,
        retryTiers: WebhookRetryTiers,
      },
    ],
    produces: [Topics.webhookDeliveries, ...WebhookRetryTiers, Topics.subscriberAlerts, Topics.deadLetters],
    rangeReads: [
      {
        groupId: ConsumerGroups.dispatcherReplay,
        topics: [Topics.messageStatus, Topics.inboundMessages, Topics.runLifecycle],
      },
    ],
  },
};

/** Logical topic and group names a service needs rights on. */
export interface KafkaAccess {
  /** Topics it consumes (Read, Describe). */
  readonly reads: readonly string[];
  /** Topics it publishes to (Write, Describe). */
  readonly writes: readonly string[];
  /** Consumer groups it joins (Read). */
  readonly groups: readonly string[];
}

/** A service's rights, with the platform's own writes: a failing handler's tiers and the DLQ. */
export function kafkaAccessOf(service: KafkaService): KafkaAccess {
  const contract = ServiceKafkaContracts[service];
  const reads = new Set<string>();
  const writes = new Set<string>(contract.produces.map((t) => t.name));
  const groups = new Set<string>();
  for (const consumer of contract.consumers) {
    reads.add(consumer.topic.name);
    groups.add(consumer.groupId);
    writes.add(Topics.deadLetters.name);
    for (const tier of consumer.retryTiers ?? []) writes.add(tier.name);
    if ((consumer.retryTiers ?? []).length > 0 && consumer.consumesRetryTiers !== false) {
      groups.add(retryGroupOf(consumer.groupId));
      for (const tier of consumer.retryTiers ?? []) reads.add(tier.name);
    }
  }
  for (const range of contract.rangeReads ?? []) {
    groups.add(range.groupId);
    for (const topic of range.topics) reads.add(topic.name);
  }
  const inContractOrder = (names: Set<string>): string[] =>
    AllTopics.map((t) => t.name).filter((name) => names.has(name));
  return { reads: inContractOrder(reads), writes: inContractOrder(writes), groups: [...groups] };
}
