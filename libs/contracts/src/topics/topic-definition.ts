import type { MessageClass } from '../validation/decode-message';

const TOPIC_NAME = /^ums\.[a-z0-9-]+(\.[a-z0-9-]+)*\.v\d+$/;

/**
 * A versioned topic: its name, the class its values must satisfy, how a value maps to its
 * partition key, and how the topic is created. A breaking schema change is a new topic (v2).
 */
export interface TopicDefinition<V extends object> {
  readonly name: string;
  readonly value: MessageClass<V>;
  /** The partition key; ordering holds only within one key. */
  readonly keyOf: (value: V) => string;
  readonly partitions: number;
  readonly retentionMs: number;
  readonly description: string;
  /** Set on delay-tier topics: how long a message waits there before it is retried. */
  readonly delayMs?: number;
  /**
   * Set on topics whose records carry CloudEvents headers (Kafka protocol binding, binary mode):
   * `ce_type` is this type, `ce_source` the producing service's source. See CloudEventHeaders.
   */
  readonly cloudEvent?: TopicCloudEvent;
}

/** What a topic's records say in their CloudEvents headers. */
export interface TopicCloudEvent {
  /** `ce_type`: reverse-DNS, versioned with the topic, e.g. `io.ums.message.status.v1`. */
  readonly type: string;
  /** The value field whose string is `ce_id` (unique per event). */
  readonly idField: string;
  /** The value field whose string is `ce_subject`, when there is one (e.g. the message id). */
  readonly subjectField?: string;
  /** The value field saying when the event happened (`ce_time`); without one, the time of publishing. */
  readonly timeField?: string;
}

/** The value type a topic carries. */
export type PayloadOf<T> = T extends TopicDefinition<infer V> ? V : never;

export function defineTopic<V extends object>(definition: TopicDefinition<V>): TopicDefinition<V> {
  if (!TOPIC_NAME.test(definition.name)) {
    throw new Error(`Topic name "${definition.name}" must look like ums.<area>.<name>.v<N>`);
  }
  if (!Number.isInteger(definition.partitions) || definition.partitions < 1) {
    throw new Error(`Topic ${definition.name}: partitions must be a positive integer`);
  }
  return Object.freeze({ ...definition });
}
