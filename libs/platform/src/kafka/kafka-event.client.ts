import { Injectable } from '@nestjs/common';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { AllTopics, type TopicDefinition, KafkaErrorCode } from '@ums/contracts';
import { lastValueFrom } from 'rxjs';
import { CodedError } from '../errors/coded-error';
import { KafkaProducer } from './kafka-producer.service';

const TOPICS_BY_NAME: ReadonlyMap<string, TopicDefinition<object>> = new Map(
  AllTopics.map((t) => [t.name, t]),
);

/**
 * The producing side of the Kafka transport as a @nestjs/microservices ClientProxy: `emit(topicName,
 * values)` publishes through the service's KafkaProducer (idempotent, acks=all, keyed by the topic's
 * contract) and completes once Kafka acknowledged. For events a service sends now and then (run
 * requests); the hot paths call KafkaProducer directly, which batches without an Observable per call.
 * Kafka events have no reply, so `send` is refused.
 */
@Injectable()
export class KafkaEventClient extends ClientProxy {
  constructor(private readonly producer: KafkaProducer) {
    super();
  }

  /** Publishes values to a contract topic; resolves once Kafka acknowledged them. */
  async emitTo<V extends object>(topic: TopicDefinition<V>, values: readonly V[]): Promise<void> {
    if (values.length === 0) return;
    await lastValueFrom(this.emit<void, readonly V[]>(topic.name, values), { defaultValue: undefined });
  }

  /** The producer connects with the module; nothing to do per client. */
  async connect(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    // The producer is closed with the module that owns it.
  }

  unwrap<T>(): T {
    return this.producer as T;
  }

  protected async dispatchEvent<T = void>(packet: ReadPacket<readonly object[]>): Promise<T> {
    const name = this.normalizePattern(packet.pattern);
    const topic = TOPICS_BY_NAME.get(name);
    if (topic === undefined)
      throw new CodedError(KafkaErrorCode.TopicUnknown, `No contract topic is named ${name}`);
    await this.producer.publish(topic, packet.data);
    return undefined as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const name = this.normalizePattern(packet.pattern);
    callback({
      err: new CodedError(
        KafkaErrorCode.ReplyUnsupported,
        `Kafka events have no reply: emit to ${name} instead`,
      ),
      isDisposed: true,
    });
    return () => undefined;
  }
}
