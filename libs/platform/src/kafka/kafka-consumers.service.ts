import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import { ServiceInfo } from '../bootstrap/service-info';
import { KafkaConfig } from '../config/common.config';
import { CodedError } from '../errors/coded-error';
import { HealthRegistry } from '../health/health-registry';
import { consumerSlot, refuseUndeclaredConsumers } from './consumer-contract.check';
import type { ConsumeTopicOptions } from './consume-topic.decorator';
import type { MessageHandler } from './consumed-message';
import { KafkaAdmin } from './kafka-admin.service';
import { kafkaFailureText } from './kafka-connection-check';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { KafkaProducer } from './kafka-producer.service';
import type { ConsumerRunner } from './kafka-transport.server';
import { TopicConsumer } from './topic-consumer';

/** One handler as the transport registered it. */
export interface ConsumerRegistration {
  readonly options: ConsumeTopicOptions<object>;
  readonly handler: MessageHandler<object>;
  /** `<group> <- <topic>`, for logs and refusals. */
  readonly name: string;
}

/**
 * Runs the handlers that KafkaTransport registered, one TopicConsumer each. Start-up is refused when a
 * topic has two handlers in one group, when a service's handlers differ from what its contract
 * declares (ServiceKafkaContracts: a handler missing or one not declared), or when a consumed topic
 * does not exist on the cluster (topics are created from the contracts, never auto-created).
 */
@Injectable()
export class KafkaConsumers implements ConsumerRunner, BeforeApplicationShutdown {
  private readonly consumers: TopicConsumer<object>[] = [];

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: KafkaAdmin,
    private readonly producer: KafkaProducer,
    private readonly metrics: KafkaMetrics,
    private readonly logger: PinoLogger,
    private readonly names: KafkaNames,
    private readonly config: KafkaConfig,
    private readonly service: ServiceInfo,
    health: HealthRegistry,
  ) {
    this.logger.setContext(KafkaConsumers.name);
    health.register('kafka-consumers', () => {
      const failing = this.consumers.map((c) => c.health()).find((h) => !h.ok);
      return failing ?? { ok: true, detail: `${this.consumers.length} handler(s) running` };
    });
  }

  async start(handlers: readonly ConsumerRegistration[]): Promise<void> {
    refuseUndeclaredConsumers(this.service.name, handlers);
    const seen = new Map<string, string>();
    for (const h of handlers) {
      const consumedTiers = h.options.consumeRetryTiers === false ? [] : (h.options.retryTiers ?? []);
      const topics = [h.options.topic, ...consumedTiers];
      for (const topic of topics) {
        const slot = consumerSlot(h.options.groupId, topic.name);
        const other = seen.get(slot);
        if (other !== undefined) {
          throw new CodedError(
            'KAFKA_DUPLICATE_HANDLER',
            `Topic ${topic.name} has two handlers in group ${h.options.groupId}: ${other} and ${h.name}`,
          );
        }
        seen.set(slot, h.name);
      }
    }
    const wanted = handlers.flatMap((h) => [h.options.topic, ...(h.options.retryTiers ?? [])]);
    if (wanted.length > 0) {
      const missing = await this.admin.missingTopics(wanted);
      if (missing.length > 0) {
        throw new CodedError(
          'KAFKA_TOPIC_MISSING',
          `Topics missing on the cluster (create them from the contracts first): ${missing.join(', ')}`,
        );
      }
    }
    // All at once: a group's first join waits out the session of a member that was killed (a restart),
    // and one group after the other a restarted sender took 55 s to be ready on a loaded host.
    await Promise.all(
      handlers.map(async (h) => {
        const consumer = new TopicConsumer({
          registration: h.options,
          handler: h.handler,
          kafka: this.kafka,
          producer: this.producer,
          metrics: this.metrics,
          logger: this.logger,
          names: this.names,
          sessionTimeoutMs: this.config.KAFKA_SESSION_TIMEOUT_MS,
          fetchMaxBytes: this.config.KAFKA_FETCH_MAX_BYTES,
          describeFailure: (error) => kafkaFailureText(error, this.config),
        });
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
