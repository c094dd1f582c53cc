import { Injectable } from '@nestjs/common';
import type { TopicDefinition } from '@ums/contracts';
import { Kafka } from 'kafkajs';

/** Creates topics explicitly from their contracts; brokers run with auto-create off. */
@Injectable()
export class KafkaAdmin {
  constructor(private readonly kafka: Kafka) {}

  /** Creates the missing ones; returns the names created. Existing topics are left as they are. */
  async ensureTopics(topics: readonly TopicDefinition<object>[], replicationFactor = 1): Promise<string[]> {
    return ensureTopics(this.kafka, topics, replicationFactor);
  }

  async missingTopics(topics: readonly TopicDefinition<object>[]): Promise<string[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      return topics.map((t) => t.name).filter((name) => !existing.has(name));
    } finally {
      await admin.disconnect();
    }
  }
}

export async function ensureTopics(
  kafka: Kafka,
  topics: readonly TopicDefinition<object>[],
  replicationFactor: number,
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        replicationFactor,
        configEntries: [
          { name: 'retention.ms', value: String(t.retentionMs) },
          { name: 'min.insync.replicas', value: String(Math.min(2, replicationFactor)) },
        ],
      })),
    });
    return missing.map((t) => t.name);
  } finally {
    await admin.disconnect();
  }
}
