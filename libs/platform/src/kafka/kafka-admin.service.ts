import { Injectable } from '@nestjs/common';
import type { TopicDefinition } from '@ums/contracts';
import { type Admin, ConfigResourceTypes, Kafka } from 'kafkajs';
import { KafkaErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';
import { KafkaNames } from './kafka-names';
import {
  describeMismatch,
  type ExpectedTopicSettings,
  expectedMinInsyncReplicas,
  type ObservedTopicSettings,
  type TopicMismatch,
  topicMismatches,
} from './topic-settings';

/** Creates topics explicitly from their contracts; brokers run with auto-create off. */
@Injectable()
export class KafkaAdmin {
  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
  ) {}

  /** Creates the missing ones and checks the existing ones (left as they are); see `ensureTopics`. */
  async ensureTopics(
    topics: readonly TopicDefinition<object>[],
    replicationFactor = 1,
  ): Promise<EnsureTopicsResult> {
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

/** What `ensureTopics` did and found. Names are physical (with the namespace). */
export interface EnsureTopicsResult {
  readonly created: readonly string[];
  /** Topics that were there already; their settings were compared with the expected ones. */
  readonly existing: readonly string[];
  /** Differences of existing topics from their contract and the replication asked for. */
  readonly mismatches: readonly TopicMismatch[];
}

/** Where mismatches are reported (a PinoLogger fits); `error` for weaker settings, `warn` for larger. */
export interface TopicMismatchLogger {
  error(context: object, message: string): void;
  warn(context: object, message: string): void;
}

/**
 * Creates the missing topics (partitions and retention from their contracts, the given replication,
 * min.insync.replicas = min(2, replication)) and checks the existing ones: partitions, replication
 * factor and min.insync.replicas. Mismatches are logged when a logger is given and always returned;
 * nothing existing is altered (the caller decides whether a mismatch is fatal).
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: readonly TopicDefinition<object>[],
  replicationFactor: number,
  names: KafkaNames = new KafkaNames(),
  logger?: TopicMismatchLogger,
): Promise<EnsureTopicsResult> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const listed = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !listed.has(names.topic(t.name)));
    const present = topics.filter((t) => listed.has(names.topic(t.name)));
    const expected = present.map((t) => expectedSettings(t, replicationFactor, names));
    const mismatches = (
      await observeTopics(
        admin,
        expected.map((e) => e.topic),
      )
    ).flatMap((observed, i) => topicMismatches(expected[i] as ExpectedTopicSettings, observed));
    for (const mismatch of mismatches)
      logger?.[mismatch.severity === 'error' ? 'error' : 'warn']({ ...mismatch }, describeMismatch(mismatch));
    const existing = present.map((t) => names.topic(t.name));
    if (missing.length === 0) return { created: [], existing, mismatches };
    await admin.createTopics({
      // kafkajs' own leader wait gives up on UNKNOWN_TOPIC_OR_PARTITION right after creation; see below.
      waitForLeaders: false,
      topics: missing.map((t) => ({
        topic: names.topic(t.name),
        numPartitions: t.partitions,
        replicationFactor,
        configEntries: [
          { name: 'retention.ms', value: String(t.retentionMs) },
          { name: 'min.insync.replicas', value: String(expectedMinInsyncReplicas(replicationFactor)) },
        ],
      })),
    });
    const created = missing.map((t) => names.topic(t.name));
    await waitForLeaders(admin, created);
    return { created, existing, mismatches };
  } finally {
    await admin.disconnect();
  }
}

function expectedSettings(
  topic: TopicDefinition<object>,
  replicationFactor: number,
  names: KafkaNames,
): ExpectedTopicSettings {
  return {
    topic: names.topic(topic.name),
    partitions: topic.partitions,
    replicationFactor,
    minInsyncReplicas: expectedMinInsyncReplicas(replicationFactor),
  };
}

/** Partitions, smallest replica count and effective min.insync.replicas of each topic, in order. */
async function observeTopics(admin: Admin, topics: readonly string[]): Promise<ObservedTopicSettings[]> {
  if (topics.length === 0) return [];
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((name) => ({
      type: ConfigResourceTypes.TOPIC,
      name,
      configNames: ['min.insync.replicas'],
    })),
  });
  return topics.map((topic) => {
    const partitions = metadata.find((m) => m.name === topic)?.partitions ?? [];
    const entry = resources
      .find((r) => r.resourceName === topic)
      ?.configEntries.find((e) => e.configName === 'min.insync.replicas');
    // The broker reports the effective value (the topic's or the broker default) when it answers at all.
    if (partitions.length === 0 || entry === undefined)
      throw new CodedError(
        KafkaErrorCode.TopicUndescribed,
        `Topic ${topic}: no partitions or min.insync.replicas reported`,
      );
    return {
      topic,
      partitions: partitions.length,
      replicationFactor: Math.min(...partitions.map((p) => p.replicas.length)),
      minInsyncReplicas: Number(entry.configValue),
    };
  });
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
