import { randomBytes } from 'node:crypto';
import type { TopicDefinition } from '@ums/contracts';
import { testKafka, uniqueTopic } from '@ums/testing';
import type { Kafka } from 'kafkajs';
import { ensureTopics, type TopicMismatchLogger } from './kafka-admin.service';
import { KafkaNames } from './kafka-names';
import type { TopicMismatch } from './topic-settings';
import { FixtureMessageV1 } from './fixtures/fixture-message';

jest.setTimeout(60_000);

const definition = (label: string, partitions: number): TopicDefinition<object> =>
  uniqueTopic(label, FixtureMessageV1, (v) => v.id, { partitions }) as TopicDefinition<object>;

/** A logger that keeps what it was told. */
function recordingLogger(): TopicMismatchLogger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    error: (_context, message) => lines.push({ level: 'error', message }),
    warn: (_context, message) => lines.push({ level: 'warn', message }),
  };
}

/** ensureTopics on the test broker (one node): creation, then the checks of existing topics. */
describe('ensureTopics (real broker)', () => {
  let kafka: Kafka;
  const names = new KafkaNames(`ops-${randomBytes(3).toString('hex')}`);

  beforeAll(() => {
    kafka = testKafka('ensure-topics-test');
  });

  /** Creates a topic behind ensureTopics' back, as an operator or an older deployment might have. */
  async function createDirectly(topic: TopicDefinition<object>, partitions: number, minIsr: number) {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: names.topic(topic.name),
            numPartitions: partitions,
            replicationFactor: 1,
            configEntries: [{ name: 'min.insync.replicas', value: String(minIsr) }],
          },
        ],
      });
    } finally {
      await admin.disconnect();
    }
  }

  it('creates missing topics, then finds them present and matching', async () => {
    const topics = [definition('ensure-a', 3), definition('ensure-b', 2)];
    const first = await ensureTopics(kafka, topics, 1, names);
    expect(first).toEqual({ created: topics.map((t) => names.topic(t.name)), existing: [], mismatches: [] });
    const logger = recordingLogger();
    const second = await ensureTopics(kafka, topics, 1, names, logger);
    expect(second).toEqual({ created: [], existing: topics.map((t) => names.topic(t.name)), mismatches: [] });
    expect(logger.lines).toEqual([]);
  });

  it('reports fewer and more partitions than the contract, and min.insync.replicas above the replicas', async () => {
    const fewer = definition('ensure-fewer', 4);
    const more = definition('ensure-more', 2);
    await createDirectly(fewer, 2, 2);
    await createDirectly(more, 5, 1);
    const fresh = definition('ensure-fresh', 3);
    const logger = recordingLogger();
    const result = await ensureTopics(kafka, [fewer, more, fresh], 1, names, logger);
    expect(result.created).toEqual([names.topic(fresh.name)]);
    expect(result.mismatches).toEqual<TopicMismatch[]>([
      { topic: names.topic(fewer.name), setting: 'partitions', expected: 4, actual: 2, severity: 'error' },
      {
        topic: names.topic(fewer.name),
        setting: 'min.insync.replicas',
        expected: 1,
        actual: 2,
        severity: 'error',
      },
      { topic: names.topic(more.name), setting: 'partitions', expected: 2, actual: 5, severity: 'warning' },
    ]);
    expect(logger.lines.map((l) => l.level)).toEqual(['error', 'error', 'warn']);
    expect(logger.lines[1]?.message).toContain('acks=all writes are refused');
  });

  it('reports replication and min.insync.replicas below what the deployment asks for', async () => {
    const topic = definition('ensure-replication', 3);
    await ensureTopics(kafka, [topic], 1, names);
    // A production deployment expects replication 3 and min.insync.replicas 2; nothing is created here.
    const result = await ensureTopics(kafka, [topic], 3, names);
    expect(result.created).toEqual([]);
    expect(result.mismatches).toEqual<TopicMismatch[]>([
      {
        topic: names.topic(topic.name),
        setting: 'replication.factor',
        expected: 3,
        actual: 1,
        severity: 'error',
      },
      {
        topic: names.topic(topic.name),
        setting: 'min.insync.replicas',
        expected: 2,
        actual: 1,
        severity: 'error',
      },
    ]);
  });
});
