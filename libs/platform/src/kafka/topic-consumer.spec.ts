import { defineTopic, MessageHandlingErrorCode, Topics } from '@ums/contracts';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { PinoLogger } from 'nestjs-pino';
import { MetricsRegistry } from '../metrics/metrics-registry';
import type { KafkaProducer, RawRecord } from './kafka-producer.service';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { FixtureMessageV1 } from './fixtures/fixture-message';
import { TopicConsumer } from './topic-consumer';
import { type MessageHandler, NonRetryableError } from './consumed-message';

/**
 * The consumer's decisions without a broker: kafkajs is replaced by a fake that hands one batch to
 * eachBatch, and the producer by one that records (or refuses) what is published.
 */
const topic = defineTopic({
  name: 'ums.test.unit.v1',
  value: FixtureMessageV1,
  keyOf: (v) => v.id,
  partitions: 1,
  retentionMs: 60_000,
  description: 'unit',
});

const mysqlDown = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', fatal: true });
const kafkaDown = (): Error =>
  Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError' });
const tooLarge = (): Error =>
  Object.assign(new Error('The request included a message larger than the max message size'), {
    name: 'KafkaJSProtocolError',
    type: 'MESSAGE_TOO_LARGE',
    retriable: false,
  });

function messages(values: readonly (object | string)[]): KafkaMessage[] {
  return values.map(
    (v, i) =>
      ({
        offset: String(i),
        key: Buffer.from(`k${i}`),
        value: Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)),
        headers: {},
        timestamp: '0',
        attributes: 0,
      }) as KafkaMessage,
  );
}

interface Harness {
  readonly consumer: TopicConsumer<FixtureMessageV1>;
  readonly metrics: KafkaMetrics;
  readonly published: { topic: string; records: readonly RawRecord[] }[];
  readonly commits: string[];
  running: boolean;
  runBatch(batch: KafkaMessage[]): Promise<void>;
}

async function harness(
  handler: MessageHandler<FixtureMessageV1>,
  publish: (topic: string, records: readonly RawRecord[]) => Promise<void> = async () => undefined,
  chunkSize = 10,
): Promise<Harness> {
  let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  const fakeConsumer = {
    events: {},
    on: () => undefined,
    connect: async () => undefined,
    subscribe: async () => undefined,
    disconnect: async () => undefined,
    run: async (config: { eachBatch: (payload: EachBatchPayload) => Promise<void> }) => {
      eachBatch = config.eachBatch;
    },
  };
  const metrics = new KafkaMetrics(new MetricsRegistry('unit'));
  const published: Harness['published'] = [];
  const commits: string[] = [];
  const logger = {
    warn: () => undefined,
    info: () => undefined,
    error: () => undefined,
    debug: () => undefined,
  };
  const consumer = new TopicConsumer<FixtureMessageV1>({
    registration: { topic, groupId: 'g', chunkSize, concurrency: 1, dependencyBackoffMaxMs: 300 },
    handler,
    kafka: { consumer: () => fakeConsumer } as unknown as Kafka,
    producer: {
      publishRaw: async (t: string, records: readonly RawRecord[]) => {
        await publish(t, records);
        published.push({ topic: t, records });
      },
    } as unknown as KafkaProducer,
    metrics,
    logger: logger as unknown as PinoLogger,
    names: new KafkaNames(),
    sessionTimeoutMs: 30_000,
    fetchMaxBytes: 1_048_576,
  });
  await consumer.start();
  const h: Harness = {
    consumer,
    metrics,
    published,
    commits,
    running: true,
    runBatch: async (batch) => {
      const payload = {
        batch: {
          topic: topic.name,
          partition: 0,
          messages: batch,
          firstOffset: () => batch[0]?.offset ?? null,
        },
        heartbeat: async () => undefined,
        isRunning: () => h.running,
        isStale: () => false,
        resolveOffset: () => undefined,
        pause: () => () => undefined,
        commitOffsetsIfNecessary: async (offsets: { topics: { partitions: { offset: string }[] }[] }) => {
          commits.push(offsets.topics[0]?.partitions[0]?.offset ?? '?');
        },
      } as unknown as EachBatchPayload;
      await (eachBatch as (payload: EachBatchPayload) => Promise<void>)(payload);
    },
  };
  return h;
}

const letters = (h: Harness) =>
  h.published
    .filter((p) => p.topic === Topics.deadLetters.name)
    .flatMap((p) =>
      p.records.map(
        (r) => JSON.parse(String(r.value)) as { sourceOffset: string; errorCode: string; reason: string },
      ),
    );

async function metricValue(metrics: KafkaMetrics, name: keyof KafkaMetrics, labels: Record<string, string>) {
  const values = (await metrics[name].get()).values;
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, string>)[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('TopicConsumer', () => {
  it('waits out an unavailable database without counting attempts, and says so in readiness', async () => {
    let calls = 0;
    const details: (string | undefined)[] = [];
    const h = await harness(async () => {
      calls++;
      if (calls <= 4) {
        details.push(h.consumer.health().detail);
        throw mysqlDown();
      }
    });
    await h.runBatch(messages([{ id: 'a' }, { id: 'b' }, { id: 'c' }]));
    expect(calls).toBe(5);
    expect(letters(h)).toEqual([]);
    expect(h.commits).toEqual(['3']);
    expect(
      details.slice(1).every((d) => /^g waiting for mysql \(ECONNREFUSED\) since \d+ s$/.test(d ?? '')),
    ).toBe(true);
    expect(h.consumer.health()).toEqual({ ok: true, detail: undefined });
    expect(await metricValue(h.metrics, 'dependencyWaits', { dependency: 'mysql' })).toBe(1);
    expect(await metricValue(h.metrics, 'chunksWaiting', {})).toBe(0);
  });

  it('lets the partition go while waiting when the consumer stops, committing nothing', async () => {
    const h = await harness(async () => {
      h.running = false;
      throw mysqlDown();
    });
    await h.runBatch(messages([{ id: 'a' }]));
    expect(h.commits).toEqual([]);
    expect(letters(h)).toEqual([]);
  });

  it('dead-letters only the poison message of a failing chunk', async () => {
    const handled: string[] = [];
    const h = await harness(async (batch) => {
      if (batch.some((m) => m.value.id === 'poison')) throw new Error('bad message');
      handled.push(...batch.map((m) => m.value.id));
    });
    const values = Array.from({ length: 10 }, (_, i) => ({ id: i === 6 ? 'poison' : `m${i}` }));
    await h.runBatch(messages(values));
    expect(handled.sort()).toEqual(
      values
        .filter((v) => v.id !== 'poison')
        .map((v) => v.id)
        .sort(),
    );
    // After retries the letter's code says so; the last error keeps its own code in the reason.
    expect(letters(h).map((l) => [l.sourceOffset, l.errorCode, l.reason])).toEqual([
      ['6', 'RETRIES_EXHAUSTED', 'UNEXPECTED: bad message'],
    ]);
    expect(h.commits).toEqual(['10']);
  });

  it('retries a dead-letter publish while Kafka is unavailable', async () => {
    let failures = 0;
    const h = await harness(
      async () => undefined,
      async () => {
        if (failures++ < 2) throw kafkaDown();
      },
    );
    await h.runBatch(messages(['{not json', { id: 'ok' }]));
    expect(letters(h).map((l) => [l.sourceOffset, l.errorCode])).toEqual([['0', 'INVALID_JSON']]);
    expect(h.commits).toEqual(['2']);
    expect(await metricValue(h.metrics, 'dependencyWaits', { dependency: 'kafka' })).toBe(1);
  });

  it('stores a reduced dead letter when the broker refuses the full one, and moves on when it refuses both', async () => {
    const h = await harness(
      async () => undefined,
      async (_topic, records) => {
        if (records.some((r) => String(r.value).length > 200_000)) throw tooLarge();
        if (records.some((r) => String(r.value).includes('refuse-even-reduced'))) throw tooLarge();
      },
    );
    await h.runBatch(messages(['"'.repeat(300_000), 'refuse-even-reduced', { id: 'ok' }]));
    const stored = letters(h);
    expect(stored.map((l) => [l.sourceOffset, l.errorCode])).toEqual([['0', 'DEAD_LETTER_TRUNCATED']]);
    expect(h.commits).toEqual(['3']);
    expect(await metricValue(h.metrics, 'deadLetterFallbacks', { outcome: 'reduced' })).toBe(1);
    expect(await metricValue(h.metrics, 'deadLetterFallbacks', { outcome: 'dropped' })).toBe(1);
  });

  it('dead-letters a single message that throws NonRetryableError at once', async () => {
    let calls = 0;
    const h = await harness(
      async () => {
        calls++;
        throw new NonRetryableError(MessageHandlingErrorCode.RecipientMissing, 'never');
      },
      undefined,
      1,
    );
    await h.runBatch(messages([{ id: 'a' }]));
    expect(calls).toBe(1);
    // The refusal's code is the letter's code, apart from its text.
    expect(letters(h).map((l) => [l.errorCode, l.reason])).toEqual([['RECIPIENT_MISSING', 'never']]);
  });
});
