import { describeMismatch, expectedMinInsyncReplicas, topicMismatches } from './topic-settings';

const expected = { topic: 't', partitions: 12, replicationFactor: 3, minInsyncReplicas: 2 };

describe('topicMismatches', () => {
  it('finds nothing when the topic is as declared', () => {
    expect(topicMismatches(expected, { ...expected })).toEqual([]);
  });

  it('calls weaker settings errors and larger ones warnings', () => {
    const found = topicMismatches(expected, {
      topic: 't',
      partitions: 6,
      replicationFactor: 4,
      minInsyncReplicas: 1,
    });
    expect(found.map((m) => [m.setting, m.expected, m.actual, m.severity])).toEqual([
      ['partitions', 12, 6, 'error'],
      ['replication.factor', 3, 4, 'warning'],
      ['min.insync.replicas', 2, 1, 'error'],
    ]);
  });

  it('calls a min.insync.replicas above the replica count an error even when it is above the expected one', () => {
    const found = topicMismatches(
      { topic: 't', partitions: 3, replicationFactor: 1, minInsyncReplicas: 1 },
      { topic: 't', partitions: 3, replicationFactor: 1, minInsyncReplicas: 2 },
    );
    expect(found).toEqual([
      { topic: 't', setting: 'min.insync.replicas', expected: 1, actual: 2, severity: 'error' },
    ]);
    expect(describeMismatch(found[0] as never)).toBe(
      'error: t has min.insync.replicas=2, expected 1 (above the replica count: acks=all writes are refused)',
    );
  });

  it('accepts a higher min.insync.replicas within the replicas as a warning', () => {
    const found = topicMismatches(expected, { ...expected, minInsyncReplicas: 3 });
    expect(found.map((m) => m.severity)).toEqual(['warning']);
  });

  it('expects min.insync.replicas 2, or 1 with a single replica', () => {
    expect([1, 2, 3, 5].map(expectedMinInsyncReplicas)).toEqual([1, 2, 2, 2]);
  });
});
