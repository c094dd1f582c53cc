import { Injectable } from '@nestjs/common';
import { KafkaErrorCode } from '@ums/contracts';
import { ServiceInfo } from '../bootstrap/service-info';
import { CodedError } from '../errors/coded-error';
import { consumerSlot, refuseUndeclaredConsumers } from './consumer-contract.check';
import type { ConsumeTopicOptions } from './consume-topic.decorator';
import { KafkaAdmin } from './kafka-admin.service';

/** A handler as the start-up check needs it. */
export interface CheckedRegistration {
  readonly options: Pick<
    ConsumeTopicOptions<object>,
    'groupId' | 'topic' | 'retryTiers' | 'consumeRetryTiers'
  >;
  readonly name: string;
}

/**
 * Refuses start-up when a topic has two handlers in one group, when the service's handlers differ
 * from its contract (ServiceKafkaContracts), or when a consumed topic does not exist on the cluster
 * (topics are created from the contracts, never auto-created).
 */
@Injectable()
export class ConsumerStartupCheck {
  constructor(
    private readonly admin: KafkaAdmin,
    private readonly service: ServiceInfo,
  ) {}

  async refuseInvalid(handlers: readonly CheckedRegistration[]): Promise<void> {
    refuseUndeclaredConsumers(this.service.name, handlers);
    refuseDuplicateHandlers(handlers);
    const wanted = handlers.flatMap((h) => [h.options.topic, ...(h.options.retryTiers ?? [])]);
    if (wanted.length === 0) return;
    const missing = await this.admin.missingTopics(wanted);
    if (missing.length > 0) {
      throw new CodedError(
        KafkaErrorCode.TopicMissing,
        `Topics missing on the cluster (create them from the contracts first): ${missing.join(', ')}`,
      );
    }
  }
}

/** Each topic a handler reads (its own, and its retry tiers unless it leaves them to another) once per group. */
export function refuseDuplicateHandlers(handlers: readonly CheckedRegistration[]): void {
  const seen = new Map<string, string>();
  for (const h of handlers) {
    const consumedTiers = h.options.consumeRetryTiers === false ? [] : (h.options.retryTiers ?? []);
    for (const topic of [h.options.topic, ...consumedTiers]) {
      const slot = consumerSlot(h.options.groupId, topic.name);
      const other = seen.get(slot);
      if (other !== undefined) {
        throw new CodedError(
          KafkaErrorCode.DuplicateHandler,
          `Topic ${topic.name} has two handlers in group ${h.options.groupId}: ${other} and ${h.name}`,
        );
      }
      seen.set(slot, h.name);
    }
  }
}
