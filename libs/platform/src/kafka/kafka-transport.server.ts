import {
  type CustomTransportStrategy,
  type MessageHandler as NestHandler,
  Server,
} from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { KafkaErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';
import { CONSUME_TOPIC_EXTRA, type ConsumeTopicOptions } from './consume-topic.decorator';
import { consumerSlot } from './consumer-contract.check';
import type { ConsumedMessage } from './consumed-message';
import type { ConsumerRegistration } from './kafka-consumers.service';
import { KafkaChunkContext } from './kafka-chunk.context';

/** What runs the registered handlers (KafkaConsumers). */
export interface ConsumerRunner {
  start(registrations: readonly ConsumerRegistration[]): Promise<void>;
  stop(): Promise<void>;
}

export interface KafkaTransportOptions {
  readonly consumers: ConsumerRunner;
}

/**
 * The platform's Kafka consumption as a NestJS microservice transport: `@ConsumeTopic` handlers are
 * event patterns of controllers, which Nest registers here through its listeners (with their
 * filters, guards and interceptors); `listen` runs them on KafkaConsumers (eachBatch, bounded
 * concurrency per partition, in-order commits, delay tiers, dead letters, stall detection) and
 * `close` stops them. Connected by `bootstrapService` with `app.connectMicroservice({ strategy })`.
 */
export class KafkaTransport extends Server implements CustomTransportStrategy {
  private readonly consumers: ConsumerRunner;

  constructor(options: KafkaTransportOptions) {
    super();
    this.consumers = options.consumers;
  }

  /** Every handler Nest registered, with its consumer registration. */
  registrations(): ConsumerRegistration[] {
    return [...this.messageHandlers].map(([pattern, handler]) => this.registrationOf(pattern, handler));
  }

  listen(callback: (error?: unknown) => void): void {
    let registrations: ConsumerRegistration[];
    try {
      registrations = this.registrations();
    } catch (error: unknown) {
      callback(error);
      return;
    }
    this.consumers.start(registrations).then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  async close(): Promise<void> {
    await this.consumers.stop();
  }

  /** Nothing to subscribe to beyond the handlers: the consumers report through health and metrics. */
  on(): never {
    throw new CodedError(
      KafkaErrorCode.TransportEvents,
      'KafkaTransport emits no events; read /health/ready',
    );
  }

  unwrap<T>(): T {
    return this.consumers as T;
  }

  private registrationOf(pattern: string, handler: NestHandler): ConsumerRegistration {
    const extras: Record<string, unknown> = handler.extras ?? {};
    const options = extras[CONSUME_TOPIC_EXTRA] as ConsumeTopicOptions<object> | undefined;
    if (options === undefined || handler.isEventHandler !== true)
      throw new CodedError(
        KafkaErrorCode.HandlerNotConsumer,
        `Pattern ${pattern} is not a @ConsumeTopic event handler; the Kafka transport runs only those`,
      );
    if (handler.next !== undefined)
      throw new CodedError(
        KafkaErrorCode.DuplicateHandler,
        `Topic ${options.topic.name} has two handlers in group ${options.groupId}`,
      );
    return {
      options,
      name: consumerSlot(options.groupId, options.topic.name),
      handler: async (messages: readonly ConsumedMessage<object>[]): Promise<void> => {
        const result: unknown = await handler(messages, new KafkaChunkContext(messages, options));
        await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
      },
    };
  }
}
