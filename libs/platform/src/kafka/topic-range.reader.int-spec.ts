import type { TopicDefinition } from '@ums/contracts';
import { testKafka, uniqueTopic } from '@ums/testing';
import type { Kafka, Producer } from 'kafkajs';
import { ensureTopics } from './kafka-admin.service';
import { KafkaNames } from './kafka-names';
import { FixtureMessageV1 } from './fixtures/fixture-message';
import { type RangeRecord, TopicRangeReader } from './topic-range.reader';

jest.setTimeout(90_000);

/** Reading a topic from a time to its end, against the real broker: a replay by time. */
describe('TopicRangeReader (real broker)', () => {
  let kafka: Kafka;
  let producer: Producer;
  let topic: TopicDefinition<FixtureMessageV1>;
  const reader = (): TopicRangeReader => new TopicRangeReader(kafka, new KafkaNames());

  const publish = async (ids: readonly string[], timestamp?: number): Promise<void> => {
    await producer.send({
      topic: topic.name,
      messages: ids.map((id) => ({
        key: id.split('-')[1] ?? id,
        value: JSON.stringify({ id }),
        ...(timestamp === undefined ? {} : { timestamp: String(timestamp) }),
      })),
    });
  };

  const readSince = async (since: Date, groupId: string): Promise<RangeRecord<FixtureMessageV1>[]> => {
    const records: RangeRecord<FixtureMessageV1>[] = [];
    const count = await reader().read({
      topic,
      groupId,
      since,
      timeoutMs: 60_000,
      onBatch: (batch) => {
        records.push(...batch);
        return Promise.resolve();
      },
    });
    expect(count).toBe(records.length);
    return records;
  };

  beforeAll(async () => {
    kafka = testKafka();
    // Idempotent: a produce retried on a loaded host must not write its records twice.
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    topic = uniqueTopic('range', FixtureMessageV1, (v) => v.id, { partitions: 3 });
    await ensureTopics(kafka, [topic as TopicDefinition<object>], 1);
    const hourAgo = Date.now() - 3_600_000;
    // Old records on every partition, then new ones, one of them not matching the contract.
    await publish(['old-a', 'old-b', 'old-c', 'old-d', 'old-e', 'old-f'], hourAgo);
    await publish(Array.from({ length: 300 }, (_, i) => `new-${i}`));
    await producer.send({ topic: topic.name, messages: [{ key: 'x', value: '{"id": 42}' }] });
  });

  afterAll(async () => {
    await producer?.disconnect();
  });

  it('reads every record written since the time, up to the end as of the call, each once', async () => {
    const records = await readSince(new Date(Date.now() - 600_000), 'range-test');
    const ids = records.map((r) => r.value.id).sort();
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => `new-${i}`).sort());
    expect(new Set(records.map((r) => `${r.partition}:${r.offset}`)).size).toBe(300);
    // Within a partition, in offset order.
    for (const partition of [0, 1, 2]) {
      const offsets = records.filter((r) => r.partition === partition).map((r) => BigInt(r.offset));
      expect(offsets).toEqual([...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
  });

  it('reads the same range again with the same group (offsets are never committed)', async () => {
    const records = await readSince(new Date(Date.now() - 600_000), 'range-test');
    expect(records).toHaveLength(300);
  });

  it('reads nothing when no record is that recent', async () => {
    expect(await readSince(new Date(Date.now() + 60_000), 'range-test-empty')).toEqual([]);
  });

  it('reads the older records too from an earlier time', async () => {
    const records = await readSince(new Date(Date.now() - 7_200_000), 'range-test-all');
    expect(records.map((r) => r.value.id).filter((id) => id.startsWith('old-'))).toHaveLength(6);
    expect(records).toHaveLength(306);
  });
});
