import { Injectable } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import { KafkaConfig } from '../config/common.config';
import type { ConsumeTopicOptions } from './consume-topic.decorator';
import type { MessageHandler } from './consumed-message';
import { kafkaFailureText } from './kafka-connection-check';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { KafkaProducer } from './kafka-producer.service';
import { TopicConsumer } from './topic-consumer';

/** Builds one TopicConsumer per handler, with the service's Kafka client, producer and settings. */
@Injectable()
export class TopicConsumerFactory {
  constructor(
    private readonly kafka: Kafka,
    private readonly producer: KafkaProducer,
    private readonly metrics: KafkaMetrics,
    private readonly logger: PinoLogger,
    private readonly names: KafkaNames,
    private readonly config: KafkaConfig,
  ) {}

  create(registration: ConsumeTopicOptions<object>, handler: MessageHandler<object>): TopicConsumer<object> {
    return new TopicConsumer({
      registration,
      handler,
      kafka: this.kafka,
      producer: this.producer,
      metrics: this.metrics,
      logger: this.logger,
      names: this.names,
      sessionTimeoutMs: this.config.KAFKA_SESSION_TIMEOUT_MS,
      fetchMaxBytes: this.config.KAFKA_FETCH_MAX_BYTES,
      describeFailure: (error) => kafkaFailureText(error, this.config),
    });
  }
}
