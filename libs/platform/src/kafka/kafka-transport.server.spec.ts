import 'reflect-metadata';
import { Controller, Module, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { DecodeErrorCode, defineTopic } from '@ums/contracts';
import { ConsumeTopic } from './consume-topic.decorator';
import { type ConsumedMessage, NonRetryableError } from './consumed-message';
import { FixtureMessageV1 } from './fixtures/fixture-message';
import { KafkaChunkContext } from './kafka-chunk.context';
import type { ConsumerRegistration } from './kafka-consumers.service';
import { type ConsumerRunner, KafkaTransport } from './kafka-transport.server';

/**
 * The transport's side of @nestjs/microservices: Nest registers the @ConsumeTopic methods of
 * controllers through its listeners, and the transport hands them to what runs the consumers (here
 * one that records them; KafkaConsumers against a real broker is covered by kafka-consumer.int-spec).
 */
const topicOf = (name: string) =>
  defineTopic({
    name,
    value: FixtureMessageV1,
    keyOf: (v) => v.id,
    partitions: 1,
    retentionMs: 60_000,
    description: 'unit',
  });
const orders = topicOf('ums.test.transport-orders.v1');
const refunds = topicOf('ums.test.transport-refunds.v1');

class RecordingRunner implements ConsumerRunner {
  registrations: readonly ConsumerRegistration[] = [];
  stops = 0;

  start(registrations: readonly ConsumerRegistration[]): Promise<void> {
    this.registrations = registrations;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.stops++;
    return Promise.resolve();
  }
}

const message = (id: string): ConsumedMessage<FixtureMessageV1> => ({
  value: { id },
  key: id,
  topic: orders.name,
  partition: 0,
  offset: '0',
  headers: {},
  attempt: 0,
});

const handled: string[] = [];
const poison = new NonRetryableError(DecodeErrorCode.SchemaViolation, 'this chunk can never succeed');

@Controller()
class OrdersConsumer {
  contexts: KafkaChunkContext[] = [];

  @ConsumeTopic({ topic: orders, groupId: 'orders', chunkSize: 10, retryTiers: [] })
  async onOrders(
    @Payload() messages: readonly ConsumedMessage<FixtureMessageV1>[],
    @Ctx() context: KafkaChunkContext,
  ): Promise<void> {
    await Promise.resolve();
    this.contexts.push(context);
    if (messages.some((m) => m.value.id === 'poison')) throw poison;
    handled.push(...messages.map((m) => m.value.id));
  }

  @ConsumeTopic({ topic: refunds, groupId: 'orders' })
  onRefunds(messages: readonly ConsumedMessage<FixtureMessageV1>[]): Promise<void> {
    handled.push(...messages.map((m) => `refund:${m.value.id}`));
    return Promise.resolve();
  }
}

@Controller()
class SecondOrdersConsumer {
  @ConsumeTopic({ topic: orders, groupId: 'orders' })
  onOrders(): Promise<void> {
    return Promise.resolve();
  }
}

async function start(controllers: Type<unknown>[]): Promise<{
  app: INestMicroservice;
  runner: RecordingRunner;
  listening: Promise<unknown>;
}> {
  @Module({ controllers })
  class TransportTestModule {}
  const runner = new RecordingRunner();
  const app = await NestFactory.createMicroservice(TransportTestModule, {
    strategy: new KafkaTransport({ consumers: runner }),
    logger: false,
  });
  return { app, runner, listening: app.listen() };
}

const registration = (runner: RecordingRunner, topic: string): ConsumerRegistration => {
  const found = runner.registrations.find((r) => r.options.topic.name === topic);
  if (found === undefined) throw new Error(`no registration for ${topic}`);
  return found;
};

describe('KafkaTransport (a @nestjs/microservices custom transport)', () => {
  beforeEach(() => handled.splice(0));

  it('registers every @ConsumeTopic method with its options, and runs it through Nest', async () => {
    const { app, runner, listening } = await start([OrdersConsumer]);
    await listening;
    expect(runner.registrations.map((r) => r.name).sort()).toEqual([
      'orders <- ums.test.transport-orders.v1',
      'orders <- ums.test.transport-refunds.v1',
    ]);
    const onOrders = registration(runner, orders.name);
    expect(onOrders.options).toMatchObject({ groupId: 'orders', chunkSize: 10 });

    await onOrders.handler([message('a'), message('b')]);
    await registration(runner, refunds.name).handler([message('c')]);
    expect(handled).toEqual(['a', 'b', 'refund:c']);
    const context = app.get(OrdersConsumer).contexts[0];
    expect(context?.getMessages().map((m) => (m.value as FixtureMessageV1).id)).toEqual(['a', 'b']);
    expect(context?.getRegistration().topic.name).toBe(orders.name);
    await app.close();
    expect(runner.stops).toBe(1);
  });

  it("hands a handler's error to the consumer as thrown, so it can tell a poison chunk", async () => {
    const { app, runner, listening } = await start([OrdersConsumer]);
    await listening;
    await expect(registration(runner, orders.name).handler([message('poison')])).rejects.toBe(poison);
    expect(handled).toEqual([]);
    await app.close();
  });

  it('refuses to start with two handlers of one topic in one group', async () => {
    const { app, runner, listening } = await start([OrdersConsumer, SecondOrdersConsumer]);
    await expect(listening).rejects.toMatchObject({ code: 'KAFKA_DUPLICATE_HANDLER' });
    expect(runner.registrations).toEqual([]);
    await app.close();
  });
});
