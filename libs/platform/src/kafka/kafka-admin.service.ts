import { Injectable } from '@nestjs/common';
import type { TopicDefinition } from '@ums/contracts';
import { type Admin, Kafka } from 'kafkajs';
import { KafkaNames } from './kafka-names';

/** Creates topics explicitly from their contracts; brokers run with auto-create off. */
@Injectable()
export class KafkaAdmin {
  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
  ) {}

  /** Creates the missing ones; returns the names created. Existing topics are left as they are. */
  async ensureTopics(topics: readonly TopicDefinition<object>[], replicationFactor = 1): Promise<string[]> {
    return ensureTopics(this.kafka, topics, replicationFactor, this.names);
  }

  async missingTopics(topics: readonly TopicDefinition<object>[]): Promise<string[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      return topics.map((t) => this.names.topic(t.name)).filter((name) => !existing.has(name));
    } finally {
      await admin.disconnect();
    }
  }
}

export async function ensureTopics(
  kafka: Kafka,
  topics: readonly TopicDefinition<object>[],
  replicationFactor: number,
  names: KafkaNames = new KafkaNames(),
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(names.topic(t.name)));
    if (missing.length === 0) return [];
    await admin.createTopics({
      // kafkajs' own leader wait gives up on UNKNOWN_TOPIC_OR_PARTITION right after creation; see below.
      waitForLeaders: false,
      topics: missing.map((t) => ({
        topic: names.topic(t.name),
        numPartitions: t.partitions,
        replicationFactor,
        configEntries: [
          { name: 'retention.ms', value: String(t.retentionMs) },
          { name: 'min.insync.replicas', value: String(Math.min(2, replicationFactor)) },
        ],
      })),
    });
    const created = missing.map((t) => names.topic(t.name));
    await waitForLeaders(admin, created);
    return created;
  } finally {
    await admin.disconnect();
  }
}

/** Until every partition of the new topics has a leader: producing before that fails. */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      if (
        metadata.length === topics.length &&
        metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
      )
        return;
    } catch (error: unknown) {
      // UNKNOWN_TOPIC_OR_PARTITION / LEADER_NOT_AVAILABLE while the controller propagates the topic.
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`Topics without leaders after ${timeoutMs} ms: ${topics.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
