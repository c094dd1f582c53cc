import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  DeadLetterV1,
  decodeMessage,
  KafkaHeaders,
  MessageHandlingErrorCode,
  Topics,
  type TopicDefinition,
} from '@ums/contracts';
import {
  collectDeadLetters,
  compiledEntry,
  freePort,
  hostileRecords,
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
        // A restarted fixture joins once the killed one's session has ended (30 s by default).
        KAFKA_SESSION_TIMEOUT_MS: '6000',
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

  /** Readiness of a fixture on its management port, with its checks. */
  const ready = async (port: number) => {
    const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
    return {
      status: res.status,
      body: (await res.json()) as { checks: Record<string, { ok: boolean; detail?: string }> },
    };
  };

  const metric = async (port: number, pattern: RegExp): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
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

  it('waits out an unavailable database: dead-letters nothing, handles everything, reports the wait', async () => {
    const total = 200;
    const topic = await createTopic('outage', { partitions: 2 });
    const key = `test:outage:${randomBytes(4).toString('hex')}`;
    const port = await freePort();
    await redis.set(`${key}:outage`, '1');
    const consumer = fixture('outage-consumer', topic, {
      FIXTURE_REDIS_KEY: key,
      FIXTURE_CHUNK_SIZE: '10',
      MANAGEMENT_PORT: String(port),
    }).start();
    await produce(
      topic,
      Array.from({ length: total }, (_, i) => ({ id: `o${i}` })),
    );

    const waiting = await waitUntil(
      'readiness to report the wait',
      async () => {
        const r = await ready(port).catch(() => undefined);
        const detail = r?.body.checks['kafka-consumers']?.detail ?? '';
        return r?.status === 503 && detail.includes('waiting for mysql') ? detail : undefined;
      },
      { timeoutMs: 60_000, abortIf: consumer.exitedUnexpectedly },
    );
    expect(waiting).toMatch(/waiting for mysql \(ECONNREFUSED\) since \d+ s/);
    // Far more failures than the in-place attempts that used to dead-letter a chunk (3 per chunk).
    await waitUntil(
      'the handler to fail many times',
      async () => Number(await redis.get(`${key}:outage-failures`)) >= 20,
      { timeoutMs: 60_000, abortIf: consumer.exitedUnexpectedly },
    );
    expect(await redis.hlen(`${key}:done`)).toBe(0);
    expect(await metric(port, /^ums_kafka_chunks_waiting\{.*dependency="mysql"/)).toBeGreaterThan(0);

    // A shutdown while chunks wait lets their partitions go at once and commits nothing past them.
    expect(await consumer.stop()).toBe(0);
    consumer.start();
    const failuresBefore = Number(await redis.get(`${key}:outage-failures`));
    await waitUntil(
      'the restarted consumer to wait again',
      async () => Number(await redis.get(`${key}:outage-failures`)) > failuresBefore,
      { timeoutMs: 60_000, abortIf: consumer.exitedUnexpectedly },
    );

    await redis.del(`${key}:outage`);
    await waitUntil('every message processed', async () => (await redis.hlen(`${key}:done`)) === total, {
      timeoutMs: 60_000,
      abortIf: consumer.exitedUnexpectedly,
    });
    await waitUntil('ready again', async () => (await ready(port)).status === 200, {
      timeoutMs: 30_000,
      abortIf: consumer.exitedUnexpectedly,
    });
    expect([...(await doneCounts(key)).values()].every((n) => n === 1)).toBe(true);
    expect(await metric(port, /^ums_kafka_dependency_waits_total\{.*dependency="mysql"/)).toBeGreaterThan(0);
    expect(await metric(port, /^ums_kafka_chunks_waiting\{/)).toBe(0);
    expect(
      await metric(port, /^ums_kafka_messages_processed_total\{.*outcome="(dead_lettered|invalid|retried)"/),
    ).toBe(0);
    expect(await metric(port, /^ums_kafka_messages_processed_total\{.*outcome="ok"/)).toBe(total);
    expect(await consumer.stop()).toBe(0);
    expect(await lettersFrom(kafka, topic.name)).toEqual([]);
  }, 180_000);

  it('splits a failing chunk so that only its poison message is dead-lettered', async () => {
    const topic = await createTopic('bisect', { partitions: 1 });
    const key = `test:bisect:${randomBytes(4).toString('hex')}`;
    const values: FixtureMessageV1[] = Array.from({ length: 50 }, (_, i) =>
      i === 20 ? { id: 'poison', poison: true } : { id: `b${i}` },
    );
    await produce(topic, values);
    const port = await freePort();
    const consumer = fixture('bisect-consumer', topic, {
      FIXTURE_REDIS_KEY: key,
      FIXTURE_CHUNK_SIZE: '50',
      MANAGEMENT_PORT: String(port),
    }).start();

    await waitUntil('the 49 good messages processed', async () => (await redis.hlen(`${key}:done`)) === 49, {
      timeoutMs: 60_000,
      abortIf: consumer.exitedUnexpectedly,
    });
    const [letter] = await readDeadLetters(kafka, topic.name, 1);
    expect(letter).toMatchObject({ sourceOffset: '20', errorCode: 'RETRIES_EXHAUSTED', attempts: 1 });
    expect(JSON.parse(letter?.value ?? '{}')).toEqual({ id: 'poison', poison: true });
    const counts = await doneCounts(key);
    expect(counts.has('poison')).toBe(false);
    // Each good message was handled once: only calls that contained the poison failed, and they record nothing.
    expect([...counts.values()]).toEqual(Array.from({ length: 49 }, () => 1));
    // The chunk, log2(50) halvings, and the poison's own three in-place attempts.
    expect(Number(await redis.get(`${key}:poisoned-calls`))).toBeLessThanOrEqual(
      1 + Math.ceil(Math.log2(50)) + 3,
    );
    expect(await metric(port, /^ums_kafka_messages_processed_total\{.*outcome="ok"/)).toBe(49);
    expect(await consumer.stop()).toBe(0);
    expect((await lettersFrom(kafka, topic.name)).map((l) => l.sourceOffset)).toEqual(['20']);
  }, 120_000);

  it('dead-letters hostile records, reduced when their copy cannot fit, and handles the record behind', async () => {
    const topic = await createTopic('hostile', { partitions: 1 });
    const key = `test:hostile:${randomBytes(4).toString('hex')}`;
    const hostile = hostileRecords();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (const record of hostile) {
      await producer.send({ topic: topic.name, acks: -1, messages: [{ ...record, partition: 0 }] });
    }
    await producer.send({
      topic: topic.name,
      acks: -1,
      messages: [{ key: 'after', value: JSON.stringify({ id: 'after' }), partition: 0 }],
    });
    await producer.disconnect();
    const port = await freePort();
    const consumer = fixture('hostile-consumer', topic, {
      FIXTURE_REDIS_KEY: key,
      FIXTURE_CHUNK_SIZE: '4',
      MANAGEMENT_PORT: String(port),
    }).start();

    await waitUntil(
      'the valid record behind them processed',
      async () => (await doneCounts(key)).has('after'),
      {
        timeoutMs: 60_000,
        abortIf: consumer.exitedUnexpectedly,
      },
    );
    // By source topic: one record forges the origin-topic header that readDeadLetters goes by.
    const letters = (
      await collectDeadLetters(kafka, {
        topic: Topics.deadLetters.name,
        keep: (letter) => letter.sourceTopic === topic.name,
        done: (read) => read.length >= hostile.length,
      })
    ).sort((a, b) => Number(a.sourceOffset) - Number(b.sourceOffset));
    expect(letters.map((l) => l.sourceOffset)).toEqual(hostile.map((_, i) => String(i)));
    const byLabel = new Map(hostile.map((r, i) => [r.label, letters[i] as DeadLetterV1]));
    expect(byLabel.get('oversized')?.errorCode).toBe(MessageHandlingErrorCode.DeadLetterTruncated);
    expect(byLabel.get('oversized')?.value).toHaveLength(64 * 1024);
    expect(byLabel.get('not-utf8')?.valueEncoding).toBe('base64');
    expect(byLabel.get('not-json')).toMatchObject({ errorCode: 'INVALID_JSON', value: 'this is not JSON {' });
    expect(byLabel.get('no-value')?.errorCode).toBe('EMPTY_MESSAGE');
    expect(byLabel.get('huge-key')?.key).toHaveLength(1024);
    expect(byLabel.get('huge-headers')?.errorCode).toBe('SCHEMA_VIOLATION');
    expect(await metric(port, /^ums_kafka_dead_letter_fallbacks_total\{.*outcome="reduced"/)).toBe(1);
    expect(await metric(port, /^ums_kafka_consumer_crashes_total\{/)).toBe(0);
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

/** Every dead letter from one topic, read up to the dead-letter topic's current end. */
async function lettersFrom(kafka: Kafka, sourceTopic: string): Promise<DeadLetterV1[]> {
  return collectDeadLetters(kafka, {
    topic: Topics.deadLetters.name,
    keep: (letter) => (letter.headers[KafkaHeaders.originTopic] ?? letter.sourceTopic) === sourceTopic,
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
