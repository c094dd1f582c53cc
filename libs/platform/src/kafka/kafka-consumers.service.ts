import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import { KafkaConfig } from '../config/common.config';
import { CodedError } from '../errors/coded-error';
import { HealthRegistry } from '../health/health-registry';
import { CONSUME_TOPIC, type ConsumeTopicOptions } from './consume-topic.decorator';
import type { MessageHandler } from './consumed-message';
import { KafkaAdmin } from './kafka-admin.service';
import { kafkaFailureText } from './kafka-connection-check';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { KafkaProducer } from './kafka-producer.service';
import { TopicConsumer } from './topic-consumer';

interface Discovered {
  readonly options: ConsumeTopicOptions<object>;
  readonly handler: MessageHandler<object>;
  readonly name: string;
}

/**
 * Finds every @ConsumeTopic handler and runs it. Start-up is refused when a topic has two
 * handlers in one group, or when a consumed topic does not exist on the cluster (topics are
 * created from the contracts, never auto-created).
 */
@Injectable()
export class KafkaConsumers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly consumers: TopicConsumer<object>[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly kafka: Kafka,
    private readonly admin: KafkaAdmin,
    private readonly producer: KafkaProducer,
    private readonly metrics: KafkaMetrics,
    private readonly logger: PinoLogger,
    private readonly names: KafkaNames,
    private readonly config: KafkaConfig,
    health: HealthRegistry,
  ) {
    this.logger.setContext(KafkaConsumers.name);
    health.register('kafka-consumers', () => {
      const failing = this.consumers.map((c) => c.health()).find((h) => !h.ok);
      return failing ?? { ok: true, detail: `${this.consumers.length} handler(s) running` };
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const handlers = this.discover();
    const seen = new Map<string, string>();
    for (const h of handlers) {
      const consumedTiers = h.options.consumeRetryTiers === false ? [] : (h.options.retryTiers ?? []);
      const topics = [h.options.topic, ...consumedTiers];
      for (const topic of topics) {
        const slot = `${h.options.groupId} <- ${topic.name}`;
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

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.stop()));
  }

  private discover(): Discovered[] {
    const found: Discovered[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (instance === null || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (prototype === null) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, unknown>)[methodName];
        if (typeof method !== 'function') continue;
        const options = this.reflector.get<ConsumeTopicOptions<object> | undefined>(CONSUME_TOPIC, method);
        if (options === undefined) continue;
        const bound = (method as MessageHandler<object>).bind(instance);
        found.push({ options, handler: bound, name: `${instance.constructor.name}.${methodName}` });
      }
    }
    return found;
  }
}
