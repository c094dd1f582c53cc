import {
  ConsumerGroups,
  SendRetryTiers,
  type TopicDefinition,
  Topics as ContractTopics,
} from '@ums/contracts';
import { type CheckedRegistration, refuseDuplicateHandlers } from './consumer-startup.check';

/** The check reads only names: the contract topics, seen as topics of any value. */
const asAny = <V extends object>(topic: TopicDefinition<V>): TopicDefinition<object> =>
  topic as unknown as TopicDefinition<object>;
const Topics = { batches: asAny(ContractTopics.batches), prioritySends: asAny(ContractTopics.prioritySends) };
const tiers = SendRetryTiers.map(asAny);

const registration = (
  name: string,
  options: Partial<CheckedRegistration['options']> & Pick<CheckedRegistration['options'], 'topic'>,
): CheckedRegistration => ({ name, options: { groupId: ConsumerGroups.sender, ...options } });

describe('refuseDuplicateHandlers', () => {
  it('accepts one handler per topic and group', () => {
    const handlers = [
      registration('A.onBatches', { topic: Topics.batches, retryTiers: tiers }),
      registration('B.onPriority', {
        topic: Topics.prioritySends,
        retryTiers: tiers,
        consumeRetryTiers: false,
      }),
    ];
    expect(() => refuseDuplicateHandlers(handlers)).not.toThrow();
  });

  it('refuses a second handler of a topic in one group, naming both', () => {
    const handlers = [
      registration('A.first', { topic: Topics.batches }),
      registration('B.second', { topic: Topics.batches }),
    ];
    expect(() => refuseDuplicateHandlers(handlers)).toThrow(
      expect.objectContaining({
        code: 'KAFKA_DUPLICATE_HANDLER',
        message: expect.stringContaining('A.first and B.second'),
      }),
    );
  });

  it('counts the retry tiers a handler consumes', () => {
    const handlers = [
      registration('A.onBatches', { topic: Topics.batches, retryTiers: tiers }),
      registration('B.onPriority', { topic: Topics.prioritySends, retryTiers: tiers }),
    ];
    expect(() => refuseDuplicateHandlers(handlers)).toThrow(
      expect.objectContaining({ code: 'KAFKA_DUPLICATE_HANDLER' }),
    );
  });

  it('allows the same topic in two groups', () => {
    const handlers = [
      registration('A.one', { topic: Topics.batches }),
      registration('B.two', { topic: Topics.batches, groupId: ConsumerGroups.expander }),
    ];
    expect(() => refuseDuplicateHandlers(handlers)).not.toThrow();
  });
});
