import { ConsumerGroups, ServiceKafkaContracts, Topics } from '@ums/contracts';
import { type NamedRegistration, refuseUndeclaredConsumers } from './consumer-contract.check';

const handler = (groupId: string, topic: { name: string }, name = 'Handler.handle'): NamedRegistration => ({
  options: { groupId, topic: topic as NamedRegistration['options']['topic'] },
  name,
});

describe('refuseUndeclaredConsumers', () => {
  const expander = ServiceKafkaContracts['batch-expander'].consumers.map((c) => handler(c.groupId, c.topic));

  it('accepts a service whose handlers are exactly its contract', () => {
    expect(() => refuseUndeclaredConsumers('batch-expander', expander)).not.toThrow();
  });

  it('refuses a declared consumer with no handler, naming it', () => {
    expect(() => refuseUndeclaredConsumers('batch-expander', [])).toThrow(
      expect.objectContaining({
        code: 'KAFKA_HANDLER_MISSING',
        message: expect.stringContaining(`${ConsumerGroups.expander} <- ${Topics.runRequested.name}`),
      }),
    );
  });

  it('refuses a handler the contract does not declare, naming the handler', () => {
    const extra = handler(ConsumerGroups.expander, Topics.batches, 'Stray.onBatches');
    expect(() => refuseUndeclaredConsumers('batch-expander', [...expander, extra])).toThrow(
      expect.objectContaining({
        code: 'KAFKA_HANDLER_UNDECLARED',
        message: expect.stringContaining('Stray.onBatches'),
      }),
    );
  });

  it('checks nothing for a service without a contract (a test fixture)', () => {
    expect(() =>
      refuseUndeclaredConsumers('consumer-fixture', [handler('any', Topics.batches)]),
    ).not.toThrow();
  });
});
