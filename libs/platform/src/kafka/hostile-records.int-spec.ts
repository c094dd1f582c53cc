import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  AllTopics,
  type DeadLetterV1,
  MessageHandlingErrorCode,
  type TopicDefinition,
  Topics,
} from '@ums/contracts';
import {
  collectDeadLetters,
  compiledEntry,
  hostileRecords,
  ManagedProcess,
  testBrokers,
  testKafka,
  testLogDir,
  testRedisUrl,
  waitUntil,
} from '@ums/testing';
import { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
// The contracts' own valid sample of each message class: the record behind the hostile ones.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { validMessages } from '../../../contracts/src/validation/test/valid-messages.fixture';
import { ensureTopics } from './kafka-admin.service';
import { KafkaNames } from './kafka-names';
import { consumedContractTopics } from './fixtures/contract-registrations';

/**
 * Nothing an outside producer writes to a topic may stop a consumer group. For every contract topic
 * a service consumes, a consumer registered with the real topic definition (its decoder and
 * validator, and its retry tiers read by a delay-tier flow) gets each hostile record of
 * libs/testing and then a valid record on the same partition: every hostile record must end on the
 * dead-letter topic (whole, or reduced when the broker refuses its copy), and the valid one be handled.
 */
describe('Hostile records on every consumed contract topic (real broker, fixture process)', () => {
  let kafka: Kafka;
  let redis: Redis;
  let consumer: ManagedProcess | undefined;
  const namespace = `hostile-${randomBytes(4).toString('hex')}`;
  const names = new KafkaNames(namespace);
  const topics = consumedContractTopics();

  beforeAll(async () => {
    kafka = testKafka();
    redis = new Redis(testRedisUrl());
    // One partition each is enough: the records and the valid one behind them share it.
    await ensureTopics(
      kafka,
      topics.map((t) => ({ ...t, partitions: 1 })),
      1,
      names,
    );
  });

  afterAll(async () => {
    await consumer?.kill();
    redis.disconnect();
  });

  it('covers every contract topic but the one no service consumes', () => {
    const expected = AllTopics.filter((t) => t.name !== Topics.subscriberAlerts.name).map((t) => t.name);
    expect(topics.map((t) => t.name).sort()).toEqual([...expected].sort());
  });

  it('dead-letters every hostile record and handles the valid record behind them', async () => {
    const key = `test:hostile:${randomBytes(4).toString('hex')}`;
    const { command, args } = compiledEntry(
      'libs/platform/src/kafka/fixtures/contract-topics-fixture.main.ts',
    );
    consumer = new ManagedProcess({
      name: 'contract-topics-consumer',
      command,
      args,
      logFile: join(testLogDir(), 'contract-topics-consumer.log'),
      env: {
        HTTP_PORT: '0',
        MANAGEMENT_PORT: '0',
        LOG_LEVEL: 'warn',
        KAFKA_BROKERS: testBrokers().join(','),
        KAFKA_NAMESPACE: namespace,
        FIXTURE_REDIS_KEY: key,
      },
    }).start();

    const hostile = hostileRecords();
    const sent = await produceAll(kafka, names, topics, hostile);

    const handled = async (): Promise<Set<string>> =>
      new Set(Object.keys(await redis.hgetall(`${key}:handled`)));
    await waitUntil(
      'the valid record behind the hostile ones handled on every topic',
      async () => {
        const done = await handled();
        return sent.every((s) => done.has(`${s.physical}|${s.validOffset}`));
      },
      { timeoutMs: 180_000, intervalMs: 1_000, abortIf: consumer.exitedUnexpectedly },
    );

    const wanted = new Map(sent.map((s) => [s.physical, s]));
    const letters = await collectDeadLetters(kafka, {
      topic: names.topic(Topics.deadLetters.name),
      keep: (letter) => wanted.has(letter.sourceTopic),
      done: (read) => sent.every((s) => s.hostileOffsets.every((o) => hasLetter(read, s.physical, o))),
      timeoutMs: 60_000,
    });

    for (const s of sent) {
      const mine = letters.filter((l) => l.sourceTopic === s.physical);
      // At least once: a letter may repeat, but every hostile offset has one and nothing else does.
      expect({ topic: s.physical, offsets: [...new Set(mine.map((l) => l.sourceOffset))].sort() }).toEqual({
        topic: s.physical,
        offsets: [...s.hostileOffsets].sort(),
      });
      const oversized = mine.find((l) => l.sourceOffset === s.offsetOf('oversized'));
      expect(oversized?.errorCode).toBe(MessageHandlingErrorCode.DeadLetterTruncated);
      expect(oversized?.reason).toContain('MESSAGE_TOO_LARGE');
      // Tier topics are read by the delay-tier flow, which a forged due time must not hold.
      const groups = new Set(mine.map((l) => l.consumerGroup.endsWith('.retry')));
      expect({ topic: s.physical, tierFlow: [...groups] }).toEqual({ topic: s.physical, tierFlow: [s.tier] });
      const notUtf8 = mine.find((l) => l.sourceOffset === s.offsetOf('not-utf8'));
      expect(notUtf8?.valueEncoding).toBe('base64');
    }
    // Nothing valid was dead-lettered: no letter names a valid record's offset.
    expect(
      letters.filter((l) =>
        sent.some((s) => s.physical === l.sourceTopic && s.validOffset === l.sourceOffset),
      ),
    ).toEqual([]);
    process.stdout.write(
      `hostile records: ${sent.length} topics x ${hostile.length} records, ${letters.length} dead letters, ` +
        `${letters.filter((l) => l.errorCode === MessageHandlingErrorCode.DeadLetterTruncated).length} reduced\n`,
    );
  }, 300_000);
});

interface SentTopic {
  readonly physical: string;
  readonly tier: boolean;
  readonly hostileOffsets: string[];
  readonly validOffset: string;
  offsetOf(label: string): string | undefined;
}

/** Writes the hostile records, then one valid record, to partition 0 of each topic; returns the offsets. */
async function produceAll(
  kafka: Kafka,
  names: KafkaNames,
  topics: readonly TopicDefinition<object>[],
  hostile: ReturnType<typeof hostileRecords>,
): Promise<SentTopic[]> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const sent: SentTopic[] = [];
    for (const topic of topics) {
      const physical = names.topic(topic.name);
      const offsets = new Map<string, string>();
      for (const record of hostile) {
        const [meta] = await producer.send({
          topic: physical,
          acks: -1,
          messages: [{ key: record.key, value: record.value, headers: record.headers, partition: 0 }],
        });
        offsets.set(record.label, meta?.baseOffset ?? '?');
      }
      const sample = validMessages[topic.value.name]?.[0];
      if (sample === undefined) throw new Error(`No valid sample of ${topic.value.name}`);
      const [meta] = await producer.send({
        topic: physical,
        acks: -1,
        messages: [{ key: topic.keyOf(sample), value: JSON.stringify(sample), partition: 0 }],
      });
      sent.push({
        physical,
        tier: topic.delayMs !== undefined,
        hostileOffsets: [...offsets.values()],
        validOffset: meta?.baseOffset ?? '?',
        offsetOf: (label) => offsets.get(label),
      });
    }
    return sent;
  } finally {
    await producer.disconnect();
  }
}

function hasLetter(letters: readonly DeadLetterV1[], topic: string, offset: string): boolean {
  return letters.some((l) => l.sourceTopic === topic && l.sourceOffset === offset);
}
