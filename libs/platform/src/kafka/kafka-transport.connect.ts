import { Injectable, type INestApplication, Optional } from '@nestjs/common';
import { KafkaConsumers } from './kafka-consumers.service';
import { KafkaTransport } from './kafka-transport.server';

/** The service's Kafka consumers, where it has the Kafka module (PlatformModule provides this always). */
@Injectable()
export class KafkaTransportHost {
  constructor(@Optional() readonly consumers?: KafkaConsumers) {}
}

/**
 * Connects the Kafka transport to a service that has the Kafka module: its `@ConsumeTopic` handlers
 * become the microservice's event handlers. Answers whether it did (a service without Kafka has none).
 * The microservice does not inherit the API's global guard, interceptor or pipes: handlers are not
 * requests of a caller, and their errors reach the consumer as thrown (KafkaHandlerErrorFilter).
 */
export function connectKafkaTransport(app: INestApplication): boolean {
  const { consumers } = app.get(KafkaTransportHost);
  if (consumers === undefined) return false;
  app.connectMicroservice({ strategy: new KafkaTransport({ consumers }) }, { inheritAppConfig: false });
  return true;
}
