import { KafkaNames } from './kafka-names';

describe('KafkaNames', () => {
  it('prefixes topics and groups with the namespace, and strips it back', () => {
    const names = new KafkaNames('staging');
    expect(names.topic('ums.send.batches.v1')).toBe('staging.ums.send.batches.v1');
    expect(names.group('notification-sender')).toBe('staging.notification-sender');
    expect(names.logicalTopic('staging.ums.send.batches.v1')).toBe('ums.send.batches.v1');
  });

  it('has no logical name for another namespace’s topic', () => {
    const names = new KafkaNames('staging');
    expect(names.logicalTopic('prod.ums.send.batches.v1')).toBeUndefined();
    expect(names.logicalTopic('staging.')).toBeUndefined();
  });

  it('leaves names as they are without a namespace', () => {
    const names = new KafkaNames();
    expect(names.topic('ums.send.batches.v1')).toBe('ums.send.batches.v1');
    expect(names.logicalTopic('ums.send.batches.v1')).toBe('ums.send.batches.v1');
  });
});
