import { randomBytes } from 'node:crypto';
import { defineTopic, type TopicDefinition, type MessageClass } from '@ums/contracts';
import { Kafka, logLevel } from 'kafkajs';

/** Brokers for tests: the run's local broker (set by the Jest global setup) or KAFKA_BROKERS. */
export function testBrokers(): string[] {
  const brokers = process.env['KAFKA_BROKERS'];
  if (brokers === undefined || brokers === '')
    throw new Error('KAFKA_BROKERS is not set: run tests through jest (global setup starts a broker)');
  return brokers.split(',');
}

export function testKafka(clientId = 'ums-test'): Kafka {
  return new Kafka({ clientId, brokers: testBrokers(), logLevel: logLevel.NOTHING });
}

/** A fresh, uniquely named topic with the given schema, for tests that must not share state. */
export function uniqueTopic<V extends object>(
  label: string,
  value: MessageClass<V>,
  keyOf: (v: V) => string,
  extra: { partitions?: number; delayMs?: number } = {},
): TopicDefinition<V> {
  return defineTopic({
    name: `ums.test.${label}-${randomBytes(4).toString('hex')}.v1`,
    value,
    keyOf,
    partitions: extra.partitions ?? 3,
    retentionMs: 3_600_000,
    description: `test topic ${label}`,
    delayMs: extra.delayMs,
  });
}
