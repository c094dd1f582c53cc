import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DeadLetterV1, decodeMessage, KafkaHeaders, Topics, type TopicDefinition } from '@ums/contracts';
import {
  compiledEntry,
  freePort,
  ManagedProcess,
  testBrokers,
  testKafka,
  testRedisUrl,
  uniqueTopic,
  waitUntil,
  testLogDir,
} from '@ums/testing';
import { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import { ensureTopics } from './kafka-admin.service';
import { FixtureMessageV1 } from './fixtures/fixture-message';

/**
 * The platform consumer against a real broker, run as a separate process (the fixture service)
 * so that it can be SIGKILLed at any instant. The fixture records every processing in Redis
 * before its handler resolves, so the records show what was processed, how often, and when.
 */
describe('Kafka consumer (real broker, fixture process)', () => {
  let kafka: Kafka;
  let redis: Redis;
  const running: ManagedProcess[] = [];

  beforeAll(async () => {
    kafka = testKafka();
    redis = new Redis(testRedisUrl());
    await ensureTopics(kafka, [Topics.deadLetters as TopicDefinition<object>], 1);
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill()));
  });

  afterAll(async () => {
    redis.disconnect();
  });

  /** A fresh topic of fixture messages, created on the broker (keyed by id unless told otherwise). */
  const createTopic = async (
    label: string,
    extra: { partitions: number; delayMs?: number },
    keyOf: (v: FixtureMessageV1) => string = (v) => v.id,
  ): Promise<TopicDefinition<FixtureMessageV1>> => {
    const topic = uniqueTopic(label, FixtureMessageV1, keyOf, extra);
    await ensureTopics(kafka, [topic as TopicDefinition<object>], 1);
    return topic;
  };

  const fixture = (
    name: string,
    topic: TopicDefinition<FixtureMessageV1>,
    env: Record<string, string>,
  ): ManagedProcess => {
    const { command, args } = compiledEntry('libs/platform/src/kafka/fixtures/consumer-fixture.main.ts');
    const proc = new ManagedProcess({
      name,
      command,
      args,
      logFile: join(testLogDir(), `${name}.log`),
      env: {
        HTTP_PORT: '0',
        MANAGEMENT_PORT: '0',
        LOG_LEVEL: 'warn',
        KAFKA_BROKERS: testBrokers().join(','),
        FIXTURE_TOPIC: topic.name,
        FIXTURE_GROUP: `fixture-${randomBytes(4).toString('hex')}`,
        ...env,
      },
    });
    running.push(proc);
    return proc;
  };

  const produce = async (
    topic: TopicDefinition<FixtureMessageV1>,
    values: (FixtureMessageV1 | string)[],
  ): Promise<void> => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let i = 0; i < values.length; i += 500) {
      await producer.send({
        topic: topic.name,
        acks: -1,
        messages: values
          .slice(i, i + 500)
          .map((v) =>
            typeof v === 'string'
              ? { key: 'poison', value: v }
              : { key: topic.keyOf(v), value: JSON.stringify(v) },
          ),
      });
    }
    await producer.disconnect();
  };

  const doneCounts = async (key: string): Promise<Map<string, number>> =>
    new Map(Object.entries(await redis.hgetall(`${key}:done`)).map(([id, n]) => [id, Number(n)]));

  it('processes every message at least once and skips none when killed mid-batch and restarted', async () => {
    const total = 3000;
    const topic = await createTopic('kill', { partitions: 3 });
    await produce(
      topic,
      Array.from({ length: total }, (_, i) => ({ id: `m${i}` })),
    );
    const key = `test:kill:${randomBytes(4).toString('hex')}`;
    const consumer = fixture('kill-consumer', topic, {
      FIXTURE_REDIS_KEY: key,
      FIXTURE_WORK_MS: '4',
      FIXTURE_CHUNK_SIZE: '5',
      FIXTURE_CONCURRENCY: '4',
    }).start();

    const killPoints = [500, 1400, 2200];
    for (const point of killPoints) {
      await waitUntil(`${point} processed`, async () => (await redis.hlen(`${key}:done`)) >= point, {
        timeoutMs: 90_000,
        abortIf: consumer.exitedUnexpectedly,
      });
      await consumer.kill();
      expect((await doneCounts(key)).size).toBeLessThan(total);
      consumer.start();
    }
    await waitUntil('every message processed', async () => (await redis.hlen(`${key}:done`)) === total, {
      timeoutMs: 120_000,
      abortIf: consumer.exitedUnexpectedly,
    });

    const counts = await doneCounts(key);
    const missing = Array.from({ length: total }, (_, i) => `m${i}`).filter((id) => !counts.has(id));
    const duplicates = [...counts.values()].filter((n) => n > 1).length;
    process.stdout.write(
      `kill test: ${consumer.kills} kills, ${counts.size}/${total} processed, ${duplicates} processed twice\n`,
    );
    expect(missing).toEqual([]);
    expect(consumer.kills).toBe(killPoints.length);
    // Redelivery is bounded by what was in flight and uncommitted at each kill, never the whole topic.
    expect(duplicates).toBeLessThan(killPoints.length * 3 * 4 * 5 * 10);

    // A graceful stop commits what it finished: the group ends with no lag.
    expect(await consumer.stop()).toBe(0);
  }, 300_000);

  it('finishes and commits in-flight work on SIGTERM, so a restart reprocesses nothing', async () => {
    const total = 400;
    const topic = await createTopic('graceful', { partitions: 3 });
    await produce(
      topic,
      Array.from({ length: total }, (_, i) => ({ id: `g${i}` })),
    );
    const key = `test:graceful:${randomBytes(4).toString('hex')}`;
    const consumer = fixture('graceful-consumer', topic, {
      FIXTURE_REDIS_KEY: key,
      FIXTURE_WORK_MS: '60',
      FIXTURE_CONCURRENCY: '4',
    }).start();

    await waitUntil('a quarter processed', async () => (await redis.hlen(`${key}:done`)) >= total / 4, {
      timeoutMs: 60_000,
      abortIf: consumer.exitedUnexpectedly,
    });
    expect(await consumer.stop()).toBe(0);
    const beforeRestart = (await doneCounts(key)).size;
    expect(beforeRestart).toBeLessThan(total);

    consumer.start();
    await waitUntil('every message processed', async () => (await redis.hlen(`${key}:done`)) === total, {
      timeoutMs: 120_000,
      abortIf: consumer.exitedUnexpectedly,
    });
    const counts = await doneCounts(key);
    process.stdout.write(
      `graceful test: stopped after ${beforeRestart}/${total}, ${[...counts.values()].filter((n) => n > 1).length} processed twice\n`,
    );
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 240_000);

  it('turns readiness false when a handler stalls past its limit', async () => {
    const topic = await createTopic('stall', { partitions: 1 });
    const port = await freePort();
    const consumer = fixture('stall-consumer', topic, {
      FIXTURE_REDIS_KEY: `test:stall:${randomBytes(4).toString('hex')}`,
      FIXTURE_WORK_MS: '120000',
      FIXTURE_STALL_MS: '1500',
      MANAGEMENT_PORT: String(port),
    }).start();
    const ready = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      return {
        status: res.status,
        body: (await res.json()) as { checks: Record<string, { ok: boolean; detail?: string }> },
      };
    };
    await waitUntil('ready before any work', async () => (await ready()).status === 200, {
      timeoutMs: 30_000,
      abortIf: consumer.exitedUnexpectedly,
    });
    await produce(topic, [{ id: 'hangs' }]);
    const stalled = await waitUntil(
      'not ready',
      async () => {
        const r = await ready();
        return r.status === 503 ? r : undefined;
      },
      { timeoutMs: 30_000, abortIf: consumer.exitedUnexpectedly },
    );
    expect(stalled.body.checks['kafka-consumers']?.detail).toMatch(/stalled on .*\[0\]@0/);
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
  }, 90_000);

  it('dead-letters a poison message and keeps consuming its partition', async () => {
    const topic = await createTopic('poison', { partitions: 1 });
    const key = `test:poison:${randomBytes(4).toString('hex')}`;
    const goods = Array.from({ length: 50 }, (_, i) => ({ id: `g${i}` }));
    await produce(topic, [
      goods[0] as FixtureMessageV1,
      '{not json',
      JSON.stringify({ failAttempts: 1 }),
      // class-transformer throws on a nested "constructor" key: a decode failure, not a stuck partition.
      JSON.stringify({ id: { constructor: 'x' } }),
      ...goods.slice(1),
    ]);
    const consumer = fixture('poison-consumer', topic, { FIXTURE_REDIS_KEY: key }).start();

    await waitUntil(
      'all good messages processed',
      async () => (await redis.hlen(`${key}:done`)) === goods.length,
      { timeoutMs: 60_000, abortIf: consumer.exitedUnexpectedly },
    );
    const letters = await readDeadLetters(kafka, topic.name, 3);
    expect(letters.map((l) => [l.sourceOffset, l.errorCode])).toEqual([
      ['1', 'INVALID_JSON'],
      ['2', 'SCHEMA_VIOLATION'],
      ['3', 'SCHEMA_VIOLATION'],
    ]);
    expect(letters[0]?.value).toBe('{not json');
    expect(letters[1]?.reason).toContain('id');
  }, 120_000);

  it('retries on delay tiers: a long delay does not hold back a short one, and nothing is retried early', async () => {
    // One key for all three, so the retries share partitions as a campaign's would.
    const sameKey = () => 'same-key';
    const topic = await createTopic('retry-main', { partitions: 1 }, sameKey);
    const short = await createTopic('retry-short', { partitions: 1, delayMs: 1_000 }, sameKey);
    const long = await createTopic('retry-long', { partitions: 1, delayMs: 8_000 }, sameKey);
    const exhausted = 'exhaust-me';
    const key = `test:retry:${randomBytes(4).toString('hex')}`;
    const consumer = fixture('retry-consumer', topic, {
      FIXTURE_REDIS_KEY: key,
      FIXTURE_TIERS: `${short.name}@${short.delayMs},${long.name}@${long.delayMs}`,
    }).start();

    // L fails twice: main -> short tier -> long tier, then succeeds on its third attempt.
    await produce(topic, [{ id: 'L', failAttempts: 2 }]);
    await waitUntil(
      'L to fail on the short tier',
      async () => (await log(redis, key)).some((e) => e.id === 'L' && e.attempt === 1),
      { timeoutMs: 60_000, abortIf: consumer.exitedUnexpectedly },
    );
    // S fails once and waits on the short tier while L sits on the long tier.
    await produce(topic, [
      { id: 'S', failAttempts: 1 },
      { id: exhausted, failAttempts: 10 },
    ]);

    await waitUntil(
      'S and L to succeed and the third attempt of the exhausted message',
      async () => {
        const done = await doneCounts(key);
        const entries = await log(redis, key);
        return done.has('S') && done.has('L') && entries.some((e) => e.id === exhausted && e.attempt === 2);
      },
      { timeoutMs: 60_000, intervalMs: 250, abortIf: consumer.exitedUnexpectedly },
    );

    const entries = await log(redis, key);
    const successOf = (id: string) => entries.filter((e) => e.id === id).at(-1) as LogEntry;
    const sFirst = entries.find((e) => e.id === 'S') as LogEntry;
    expect(successOf('S').attempt).toBe(1);
    expect(successOf('L').attempt).toBe(2);
    // S went on the short tier after L went on the long one, yet finished first and about 1 s after failing.
    expect(successOf('S').at).toBeLessThan(successOf('L').at);
    expect(successOf('S').at - sFirst.at).toBeLessThan(5_000);
    // No retried attempt ran before its due time.
    const retried = entries.filter((e) => e.attempt > 0);
    expect(retried.length).toBeGreaterThanOrEqual(4);
    for (const e of retried) expect(e.at).toBeGreaterThanOrEqual(e.dueAt);

    // A message that fails on every tier ends in the dead-letter topic after 3 attempts.
    const [letter] = await readDeadLetters(kafka, topic.name, 1);
    expect(letter?.errorCode).toBe('RETRIES_EXHAUSTED');
    expect(letter?.attempts).toBe(3);
    expect(letter?.sourceTopic).toBe(long.name);
    expect(JSON.parse(letter?.value ?? '{}')).toEqual({ id: exhausted, failAttempts: 10 });
  }, 120_000);
});

interface LogEntry {
  id: string;
  attempt: number;
  at: number;
  dueAt: number;
}

async function log(redis: Redis, key: string): Promise<LogEntry[]> {
  return (await redis.lrange(`${key}:log`, 0, -1)).map((line) => {
    const [id, attempt, at, dueAt] = line.split('|');
    return { id: id as string, attempt: Number(attempt), at: Number(at), dueAt: Number(dueAt) };
  });
}

/** Reads the shared dead-letter topic from the start and keeps the letters that came from one topic. */
async function readDeadLetters(
  kafka: Kafka,
  sourceTopic: string,
  expected: number,
  timeoutMs = 60_000,
): Promise<DeadLetterV1[]> {
  const consumer = kafka.consumer({ groupId: `dlq-reader-${randomBytes(4).toString('hex')}` });
  const letters: DeadLetterV1[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: Topics.deadLetters.name, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const decoded = decodeMessage(DeadLetterV1, message.value);
        if (!decoded.ok) return;
        // Letters from a retry tier name the tier as source and the main topic as origin.
        const origin = decoded.value.headers[KafkaHeaders.originTopic] ?? decoded.value.sourceTopic;
        if (origin === sourceTopic) letters.push(decoded.value);
      },
    });
    await waitUntil(`${expected} dead letters for ${sourceTopic}`, () => letters.length >= expected, {
      timeoutMs,
    });
    return letters.sort((a, b) => Number(a.sourceOffset) - Number(b.sourceOffset));
  } finally {
    await consumer.disconnect();
  }
}
