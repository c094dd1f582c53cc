import { kafkaNodesArg } from './kafka-nodes-arg';

describe('kafkaNodesArg', () => {
  it('is 1 without --brokers', () => {
    expect(kafkaNodesArg(['--recipients', '10'])).toBe(1);
  });

  it('takes 1 or 3', () => {
    expect(kafkaNodesArg(['--brokers', '3'])).toBe(3);
    expect(kafkaNodesArg(['--keep', '--brokers', '1'])).toBe(1);
  });

  it('refuses other counts and a missing value', () => {
    expect(() => kafkaNodesArg(['--brokers', '2'])).toThrow('--brokers is 1 or 3, got 2');
    expect(() => kafkaNodesArg(['--brokers'])).toThrow('got nothing');
  });
});
