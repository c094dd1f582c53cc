import { Global, Module } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import { ServiceInfo } from '../bootstrap/service-info';
import { KafkaConfig } from '../config/common.config';
import { createKafkaClient } from './kafka-client.factory';
import { KafkaAdmin } from './kafka-admin.service';
import { checkKafkaConnection } from './kafka-connection-check';
import { kafkaConnectionOptions } from './kafka-security';
import { ConsumerStartupCheck } from './consumer-startup.check';
import { KafkaConsumers } from './kafka-consumers.service';
import { KafkaEventClient } from './kafka-event.client';
import { TopicConsumerFactory } from './topic-consumer.factory';
import { KafkaMetrics } from './kafka.metrics';
import { KafkaNames } from './kafka-names';
import { KafkaProducer } from './kafka-producer.service';
import { TopicRangeReader } from './topic-range.reader';

/** The only module that touches kafkajs: one client, one idempotent producer, the consumers (KafkaTransport). */
@Global()
@Module({
  providers: [
    {
      provide: Kafka,
      inject: [KafkaConfig, ServiceInfo, PinoLogger],
      // Wrong TLS or SASL settings stop start-up here, naming the setting (kafka-connection-check.ts).
      useFactory: async (config: KafkaConfig, service: ServiceInfo, logger: PinoLogger) => {
        const connection = kafkaConnectionOptions(config);
        const unreachable = await checkKafkaConnection(connection, config);
        if (unreachable !== undefined)
          logger.warn({ code: unreachable.code }, `${unreachable.message}; connecting with retries`);
        return createKafkaClient({ ...connection, clientId: config.KAFKA_CLIENT_ID ?? service.name }, logger);
      },
    },
    {
      provide: KafkaNames,
      inject: [KafkaConfig],
      useFactory: (config: KafkaConfig) => new KafkaNames(config.KAFKA_NAMESPACE),
    },
    KafkaMetrics,
    KafkaProducer,
    KafkaEventClient,
    KafkaAdmin,
    ConsumerStartupCheck,
    TopicConsumerFactory,
    KafkaConsumers,
    TopicRangeReader,
  ],
  exports: [KafkaProducer, KafkaEventClient, KafkaAdmin, KafkaNames, KafkaConsumers, TopicRangeReader],
})
export class KafkaModule {}
