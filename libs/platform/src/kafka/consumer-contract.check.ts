import { type ConsumerContract, KafkaErrorCode, ServiceKafkaContracts } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';
import type { ConsumeTopicOptions } from './consume-topic.decorator';

/** A handler as far as the contract check needs it. */
export interface NamedRegistration {
  readonly options: Pick<ConsumeTopicOptions<object>, 'groupId' | 'topic'>;
  /** How refusals name it (the transport names a handler by its consumerSlot). */
  readonly name: string;
}

/** A consumer group on a topic, as start-up refusals and logs name it. */
export function consumerSlot(groupId: string, topic: string): string {
  return `${groupId} <- ${topic}`;
}

/** The contracts by any service name (a test fixture's name has none). */
const CONTRACTS: Readonly<Record<string, { readonly consumers: readonly ConsumerContract[] } | undefined>> =
  ServiceKafkaContracts;

/**
 * A service named in ServiceKafkaContracts (from which its Kafka ACLs are generated) must register
 * exactly the handlers declared there: a handler missing would leave its topic unread, and one not
 * declared would be refused by the broker's ACLs. Other services (test fixtures) are not checked.
 */
export function refuseUndeclaredConsumers(service: string, handlers: readonly NamedRegistration[]): void {
  const contract = CONTRACTS[service];
  if (contract === undefined) return;
  const declared = new Set(contract.consumers.map((c) => consumerSlot(c.groupId, c.topic.name)));
  const present = new Set(handlers.map((h) => consumerSlot(h.options.groupId, h.options.topic.name)));
  const missing = [...declared].filter((s) => !present.has(s));
  if (missing.length > 0)
    throw new CodedError(
      KafkaErrorCode.HandlerMissing,
      `${service} declares consumers with no handler: ${missing.join(', ')}`,
    );
  const undeclared = handlers.filter(
    (h) => !declared.has(consumerSlot(h.options.groupId, h.options.topic.name)),
  );
  if (undeclared.length > 0)
    throw new CodedError(
      KafkaErrorCode.HandlerUndeclared,
      `${service} has handlers its contract (ServiceKafkaContracts) does not declare: ` +
        undeclared.map((h) => h.name).join(', '),
    );
}
