import {
  applyDecorators,
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  SetMetadata,
  UseFilters,
} from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import type { TopicDefinition } from '@ums/contracts';
import { type Observable, throwError } from 'rxjs';

export const CONSUME_TOPIC = Symbol('ums:consume-topic');
/** The key of a handler's registration among its pattern's extras (what KafkaTransport reads). */
export const CONSUME_TOPIC_EXTRA = 'umsConsumeTopic';

export interface ConsumeTopicOptions<V extends object> {
  readonly topic: TopicDefinition<V>;
  readonly groupId: string;
  /** Messages handed to one handler call (1 for per-message handlers; ~100 for bulk SQL). */
  readonly chunkSize?: number;
  /** Chunks of one partition in flight at once; offsets still commit in order. */
  readonly concurrency?: number;
  readonly partitionsConsumedConcurrently?: number;
  /** Delay-tier topics, shortest first; a chunk that still fails goes to the next tier, then to the DLQ. */
  readonly retryTiers?: readonly TopicDefinition<V>[];
  /**
   * False when another handler's group already consumes these tiers (two lanes sharing one set of
   * tiers): failures are still forwarded to them, but this registration starts no tier flow.
   */
  readonly consumeRetryTiers?: boolean;
  /** Attempts within the partition before moving on (default 3 without tiers, 1 with tiers). */
  readonly inPlaceAttempts?: number;
  /** Extra random delay on tiers, as a fraction of the tier delay (default 0.2). */
  readonly jitterRatio?: number;
  /** A chunk making no progress for longer than this marks the consumer stalled (default 5 min). */
  readonly stallTimeoutMs?: number;
  /**
   * Longest pause between tries while a dependency is unavailable (default 2 s). Such a failure
   * never counts as an attempt: the chunk is tried again, its partition held, until it answers.
   */
  readonly dependencyBackoffMaxMs?: number;
}

/** The event pattern of a registration: one handler per topic and consumer group. */
export function consumePattern(options: {
  readonly topic: { readonly name: string };
  readonly groupId: string;
}): { readonly topic: string; readonly group: string } {
  return { topic: options.topic.name, group: options.groupId };
}

/**
 * Hands a handler's error to the transport as it was thrown. Nest's default RPC filter would turn it
 * into `{ status: 'error' }`, and the consumer decides by the error itself: a dependency that is
 * unavailable waits, a NonRetryableError goes to the dead letters, anything else to a retry tier.
 */
@Catch()
export class KafkaHandlerErrorFilter implements ExceptionFilter {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

/**
 * Marks a controller method as the handler of a topic for a consumer group: an event pattern of the
 * platform's Kafka transport (KafkaTransport, @nestjs/microservices). The method gets validated
 * messages and must make its work durable before it resolves: the offsets it covers are committed
 * right after. It must be idempotent (delivery is at least once).
 */
export function ConsumeTopic<V extends object>(options: ConsumeTopicOptions<V>): MethodDecorator {
  return applyDecorators(
    SetMetadata(CONSUME_TOPIC, options),
    EventPattern(consumePattern(options), { [CONSUME_TOPIC_EXTRA]: options }),
    UseFilters(KafkaHandlerErrorFilter),
  );
}
