import type { Kafka, Producer } from 'kafkajs';
import { isInfrastructureError } from '../errors/infrastructure-error';
import { ServiceInfo } from '../bootstrap/service-info';
import { HealthRegistry } from '../health/health-registry';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { KafkaProducer, producerStateLost, utf8Bytes } from './kafka-producer.service';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';

/** A kafkajs producer double: counts connects, disconnects and sends; fails sends as told. */
class FakeProducer {
  readonly events = { CONNECT: 'connect', DISCONNECT: 'disconnect' };
  connects = 0;
  disconnects = 0;
  sent = 0;
  failWith: Error | undefined;
  readonly listeners: string[] = [];

  on(event: string): void {
    this.listeners.push(event);
  }

  async connect(): Promise<void> {
    this.connects++;
  }

  async disconnect(): Promise<void> {
    this.disconnects++;
  }

  async sendBatch(): Promise<void> {
    if (this.failWith !== undefined) throw this.failWith;
    this.sent++;
  }
}

function protocolError(type: string): Error {
  const inner = Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type, retriable: false });
  return Object.assign(new Error(type), { name: 'KafkaJSNonRetriableError', cause: inner });
}

describe('KafkaProducer replaces a producer whose sequence state the broker lost', () => {
  const made: FakeProducer[] = [];
  const kafka = {
    producer: () => {
      const fake = new FakeProducer();
      made.push(fake);
      return fake as unknown as Producer;
    },
  } as unknown as Kafka;
  const registry = new MetricsRegistry('producer-spec');
  const producer = new KafkaProducer(
    kafka,
    new KafkaMetrics(registry),
    new HealthRegistry(),
    new KafkaNames(),
    new ServiceInfo('producer-spec'),
  );

  it('fails the publish as unavailable, then sends through a new, connected producer', async () => {
    await producer.onModuleInit();
    const first = made[0] as FakeProducer;
    first.failWith = protocolError('OUT_OF_ORDER_SEQUENCE_NUMBER');

    const failed = producer.publishRaw('some.topic', [{ key: 'k', value: 'v' }]);
    await expect(failed).rejects.toMatchObject({ code: 'KAFKA_PRODUCER_RESET' });
    await failed.catch((error: unknown) => expect(isInfrastructureError(error)).toBe(true));
    expect(made).toHaveLength(2);
    expect(first.disconnects).toBe(1);

    await producer.publishRaw('some.topic', [{ key: 'k', value: 'v' }]);
    const second = made[1] as FakeProducer;
    expect(second.connects).toBe(1);
    expect(second.sent).toBe(1);
    const metrics = await registry.getSingleMetricAsString('ums_kafka_producer_resets_total');
    expect(metrics).toContain('reason="OUT_OF_ORDER_SEQUENCE_NUMBER",service="producer-spec"} 1');
  });

  it('passes other broker refusals through unchanged, keeping its producer', async () => {
    const current = made[made.length - 1] as FakeProducer;
    const tooLarge = protocolError('MESSAGE_TOO_LARGE');
    current.failWith = tooLarge;
    await expect(producer.publishRaw('some.topic', [{ key: 'k', value: 'v' }])).rejects.toBe(tooLarge);
    expect(made[made.length - 1]).toBe(current);
    current.failWith = undefined;
  });

  it('finds the lost-state answer through causes only', () => {
    expect(producerStateLost(protocolError('UNKNOWN_PRODUCER_ID'))).toBe('UNKNOWN_PRODUCER_ID');
    expect(producerStateLost(protocolError('NOT_LEADER_OR_FOLLOWER'))).toBeUndefined();
    expect(producerStateLost('OUT_OF_ORDER_SEQUENCE_NUMBER')).toBeUndefined();
  });
});

describe('utf8Bytes', () => {
  it('counts the bytes of a string in UTF-8 as Buffer.byteLength does', () => {
    const strings = [
      '',
      'ce_id',
      'msg-42-SENT-DELIVERED',
      'é',
      'größe',
      '€',
      '日本語',
      '😀',
      'a😀b',
      '\u0000',
    ];
    // Lone surrogates are written as three bytes (U+FFFD), a high one at the end too.
    strings.push('\ud800', 'x\udc00y', 'a\ud83d', '\ud83d\ud83d\ude00');
    for (const s of strings) expect({ s, bytes: utf8Bytes(s) }).toEqual({ s, bytes: Buffer.byteLength(s) });
  });
});
