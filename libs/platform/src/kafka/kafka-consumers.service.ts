import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { HealthRegistry } from '../health/health-registry';
import type { ConsumeTopicOptions } from './consume-topic.decorator';
import type { MessageHandler } from './consumed-message';
import { ConsumerStartupCheck } from './consumer-startup.check';
import type { ConsumerRunner } from './kafka-transport.server';
import type { TopicConsumer } from './topic-consumer';
import { TopicConsumerFactory } from './topic-consumer.factory';

/** One handler as the transport registered it. */
export interface ConsumerRegistration {
  readonly options: ConsumeTopicOptions<object>;
  readonly handler: MessageHandler<object>;
  /** `<group> <- <topic>`, for logs and refusals. */
  readonly name: string;
}

/**
 * Runs the handlers that KafkaTransport registered, one TopicConsumer each, once ConsumerStartupCheck
 * accepted them (no duplicate handler, exactly the contract's handlers, every topic on the cluster).
 */
@Injectable()
export class KafkaConsumers implements ConsumerRunner, BeforeApplicationShutdown {
  private readonly consumers: TopicConsumer<object>[] = [];

  constructor(
    private readonly check: ConsumerStartupCheck,
    private readonly factory: TopicConsumerFactory,
    private readonly logger: PinoLogger,
    health: HealthRegistry,
  ) {
    this.logger.setContext(KafkaConsumers.name);
    health.register('kafka-consumers', () => {
      const failing = this.consumers.map((c) => c.health()).find((h) => !h.ok);
      return failing ?? { ok: true, detail: `${this.consumers.length} handler(s) running` };
    });
  }

  async start(handlers: readonly ConsumerRegistration[]): Promise<void> {
    await this.check.refuseInvalid(handlers);
    // All at once: a group's first join waits out the session of a member that was killed (a restart),
    // and one group after the other a restarted sender took 55 s to be ready on a loaded host.
    await Promise.all(
      handlers.map(async (h) => {
        const consumer = this.factory.create(h.options, h.handler);
        this.consumers.push(consumer);
        await consumer.start();
        this.logger.info(
          { handler: h.name, groupId: h.options.groupId, topics: consumer.topicNames },
          'Consumer started',
        );
      }),
    );
  }

  /** Stops every consumer: in-flight chunks finish and commit. Called again, it does nothing. */
  async stop(): Promise<void> {
    const running = this.consumers.splice(0);
    await Promise.all(running.map((c) => c.stop()));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }
}
