import type { TopicDefinition } from '@ums/contracts';
import { testKafka, uniqueTopic } from '@ums/testing';
import type { Kafka } from 'kafkajs';
import { ServiceInfo } from '../bootstrap/service-info';
import { HealthRegistry } from '../health/health-registry';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { ensureTopics } from './kafka-admin.service';
import { KafkaProducer } from './kafka-producer.service';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { FixtureMessageV1 } from './fixtures/fixture-message';

jest.setTimeout(60_000);

/** The service's one producer against the real broker: concurrent publishes share requests. */
describe('Kafka producer (real broker)', () => {
  let kafka: Kafka;
  let producer: KafkaProducer;
  const requests: number[] = [];

  beforeAll(async () => {
    kafka = testKafka();
    producer = new KafkaProducer(
      kafka,
      new KafkaMetrics(new MetricsRegistry('producer-test')),
      new HealthRegistry(),
      new KafkaNames(),
      new ServiceInfo('producer-test'),
    );
    // The client's own instrumentation: one event per produce request sent to the broker.
    const inner = (
      producer as unknown as { producer: { on(e: string, f: () => void): void; events: { REQUEST: string } } }
    ).producer;
    inner.on(inner.events.REQUEST, () => requests.push(Date.now()));
    await producer.onModuleInit();
  });

  afterAll(async () => {
    await producer?.onApplicationShutdown();
  });

  const topic = async (label: string): Promise<TopicDefinition<FixtureMessageV1>> => {
    const t = uniqueTopic(label, FixtureMessageV1, (v) => v.id.split('-')[0] as string, { partitions: 3 });
    await ensureTopics(kafka, [t as TopicDefinition<object>], 1);
    return t;
  };

  /** Every value on the topic, in partition order, read from the beginning by a fresh group. */
  const readAll = async (t: TopicDefinition<FixtureMessageV1>, expected: number): Promise<string[]> => {
    const consumer = kafka.consumer({ groupId: `producer-test-${t.name}` });
    const seen: { key: string; id: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: t.name, fromBeginning: true });
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const value = JSON.parse(String(message.value)) as FixtureMessageV1;
          seen.push({ key: String(message.key), id: value.id });
          if (seen.length >= expected) resolve();
        },
      });
    });
    await Promise.race([done, new Promise((r) => setTimeout(r, 30_000))]);
    await consumer.disconnect();
    return seen.map((s) => s.id);
  };

  it('sends publishes made together in a few requests, each key in call order, none lost', async () => {
    const t = await topic('coalesce');
    const requestsBefore = requests.length;
    // 400 calls at once over 8 keys (3 partitions), 5 records each.
    await Promise.all(
      Array.from({ length: 400 }, (_, call) =>
        producer.publish(
          t,
          Array.from({ length: 5 }, (_, r) => ({
            id: `k${call % 8}-${String(call * 5 + r).padStart(5, '0')}`,
          })),
        ),
      ),
    );
    const sent = requests.length - requestsBefore;
    const ids = await readAll(t, 2_000);
    expect(ids).toHaveLength(2_000);
    expect(new Set(ids).size).toBe(2_000);
    for (let key = 0; key < 8; key++) {
      const ofKey = ids.filter((id) => id.startsWith(`k${key}-`));
      expect(ofKey).toEqual([...ofKey].sort());
      expect(ofKey).toHaveLength(250);
    }
    // One request per call before (400); while one is on its way the next calls queue together.
    expect(sent).toBeLessThan(50);
  });

  it('splits what is queued into requests the broker accepts (a 1 MiB record batch limit)', async () => {
    const t = await topic('split');
    const big = 'x'.repeat(20_000);
    // 100 calls of 20 kB each: 2 MB queued at once, more than one record batch may hold.
    await Promise.all(
      Array.from({ length: 100 }, (_, call) =>
        producer.publish(t, [{ id: `k0-${String(call).padStart(3, '0')}`, pad: big } as FixtureMessageV1]),
      ),
    );
    const ids = await readAll(t, 100);
    expect(ids).toEqual(Array.from({ length: 100 }, (_, call) => `k0-${String(call).padStart(3, '0')}`));
  });

  it('sends a record the broker refuses in a request of its own, so other calls still succeed', async () => {
    const t = await topic('refused');
    const hugeHeaders = { 'x-huge': 'h'.repeat(1_200_000) };
    const small = (id: string) => producer.publishRaw(t.name, [{ key: 'k0', value: JSON.stringify({ id }) }]);
    // The first call goes at once; the others queue behind it and would share the next request.
    const outcomes = await Promise.allSettled([
      small('k0-first'),
      small('k0-a'),
      producer.publishRaw(t.name, [{ key: 'k0', value: '{"id":"k0-huge"}', headers: hugeHeaders }]),
      small('k0-b'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/larger than the max message size/);
    expect(await readAll(t, 3)).toEqual(['k0-first', 'k0-a', 'k0-b']);
  });
});
