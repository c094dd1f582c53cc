import {
  AllTopics,
  KafkaHeaders,
  kafkaAccessOf,
  type KafkaService,
  retryGroupOf,
  ServiceKafkaContracts,
  type TopicDefinition,
  Topics,
} from '@ums/contracts';
import type { JsonSchema } from './message-schema.renderer';

/** Kafka bindings of AsyncAPI (channel, message, operation) in the version the document uses. */
export const KAFKA_BINDING_VERSION = '0.5.0';

/**
 * The operations on one topic's channel: each service that sends to it or receives from it, as
 * `ServiceKafkaContracts` and `kafkaAccessOf` (the source of the Kafka ACLs) say, by operation id.
 */
export function channelOperations(topic: TopicDefinition<object>, channelId: string): [string, JsonSchema][] {
  const operations: [string, JsonSchema][] = [];
  const channel = { $ref: `#/channels/${channelId}` };
  const messages = [{ $ref: `#/channels/${channelId}/messages/${topic.value.name}` }];
  for (const service of Object.keys(ServiceKafkaContracts) as KafkaService[]) {
    const access = kafkaAccessOf(service);
    if (access.writes.includes(topic.name)) {
      operations.push([
        `${service}_send_${channelId}`,
        {
          action: 'send',
          channel,
          title: `${service} sends to ${topic.name}`,
          description: sendDescription(service, topic),
          tags: [{ name: service }],
          messages,
        },
      ]);
    }
    if (access.reads.includes(topic.name)) {
      const groups = groupsReading(service, topic.name);
      operations.push([
        `${service}_receive_${channelId}`,
        {
          action: 'receive',
          channel,
          title: `${service} receives from ${topic.name}`,
          description: `${service} reads ${topic.name} in consumer group${groups.length > 1 ? 's' : ''} ${groups.map((g) => `\`${g}\``).join(' and ')}.`,
          tags: [{ name: service }],
          messages,
          bindings: {
            kafka: { groupId: { type: 'string', enum: groups }, bindingVersion: KAFKA_BINDING_VERSION },
          },
        },
      ]);
    }
  }
  return operations;
}

function sendDescription(service: KafkaService, topic: TopicDefinition<object>): string {
  const contract = ServiceKafkaContracts[service];
  if (contract.produces.some((t) => t.name === topic.name)) return `${service} publishes to ${topic.name}.`;
  return `${service} forwards here the records its handlers could not process (retry tiers, dead letters).`;
}

/** The consumer groups (logical names) in which a service reads a topic. */
function groupsReading(service: KafkaService, topicName: string): string[] {
  const contract = ServiceKafkaContracts[service];
  const groups: string[] = [];
  for (const consumer of contract.consumers) {
    if (consumer.topic.name === topicName) groups.push(consumer.groupId);
    const tiers = consumer.retryTiers ?? [];
    if (consumer.consumesRetryTiers !== false && tiers.some((t) => t.name === topicName)) {
      groups.push(retryGroupOf(consumer.groupId));
    }
  }
  for (const range of contract.rangeReads ?? []) {
    if (range.topics.some((t) => t.name === topicName)) groups.push(range.groupId);
  }
  return [...new Set(groups)];
}

/**
 * Why a service sends to every topic but the dead letters, when one does: it replays dead letters
 * (its contract's `produces` says so by listing them all). Empty when no service does.
 */
export function replayNote(): string {
  const replayable = AllTopics.filter((t) => t.name !== Topics.deadLetters.name);
  const replayers = (Object.keys(ServiceKafkaContracts) as KafkaService[]).filter((service) =>
    replayable.every((t) => ServiceKafkaContracts[service].produces.some((p) => p.name === t.name)),
  );
  if (replayers.length === 0) return '';
  return (
    `${replayers.join(' and ')} sends to every topic but the dead letters: besides its own records, it publishes` +
    ` a dead letter an operator replays back to the topic it came from, with \`${KafkaHeaders.deadLetterReplay}\`.`
  );
}
