/** The settings of an existing topic that `ensureTopics` compares with what the deployment declares. */
export type TopicSetting = 'partitions' | 'replication.factor' | 'min.insync.replicas';

/** What a topic should have: partitions from its contract, replication and min ISR from the deployment. */
export interface ExpectedTopicSettings {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

/** What the cluster reports; replication is the smallest replica count of the topic's partitions. */
export interface ObservedTopicSettings {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

/**
 * `error`: weaker than what the services rely on (fewer partitions than consumers are sized for, fewer
 * replicas or a lower min.insync.replicas than acks=all is meant to wait for, or a min.insync.replicas
 * above the replica count, which refuses every acks=all write). `warning`: larger than declared; it works.
 */
export type MismatchSeverity = 'error' | 'warning';

export interface TopicMismatch {
  readonly topic: string;
  readonly setting: TopicSetting;
  readonly expected: number;
  readonly actual: number;
  readonly severity: MismatchSeverity;
}

/** min.insync.replicas of a topic created at this replication: 2, or 1 when there is one replica. */
export function expectedMinInsyncReplicas(replicationFactor: number): number {
  return Math.min(2, replicationFactor);
}

/** The differences between an existing topic and what is expected, in setting order. */
export function topicMismatches(
  expected: ExpectedTopicSettings,
  observed: ObservedTopicSettings,
): TopicMismatch[] {
  const found: TopicMismatch[] = [];
  const compare = (setting: TopicSetting, want: number, have: number): void => {
    if (want === have) return;
    found.push({
      topic: expected.topic,
      setting,
      expected: want,
      actual: have,
      severity: have < want ? 'error' : 'warning',
    });
  };
  compare('partitions', expected.partitions, observed.partitions);
  compare('replication.factor', expected.replicationFactor, observed.replicationFactor);
  if (observed.minInsyncReplicas > observed.replicationFactor) {
    found.push({
      topic: expected.topic,
      setting: 'min.insync.replicas',
      expected: expected.minInsyncReplicas,
      actual: observed.minInsyncReplicas,
      severity: 'error',
    });
  } else {
    compare('min.insync.replicas', expected.minInsyncReplicas, observed.minInsyncReplicas);
  }
  return found;
}

/** One line for a log or a tool's output. */
export function describeMismatch(mismatch: TopicMismatch): string {
  const { topic, setting, expected, actual, severity } = mismatch;
  const why =
    setting === 'min.insync.replicas' && severity === 'error' && actual > expected
      ? ' (above the replica count: acks=all writes are refused)'
      : '';
  return `${severity}: ${topic} has ${setting}=${actual}, expected ${expected}${why}`;
}
