import { AllTopics, type DeadLetterV1, Topics } from '@ums/contracts';
import { getMetadataStorage } from 'class-validator';
import { deadLetterTenant, TENANT_KEY_TOPICS, TENANT_PAYLOAD_TOPICS } from './dead-letter-tenant';

const letter = (over: Partial<DeadLetterV1>): DeadLetterV1 => ({
  sourceTopic: Topics.batches.name,
  sourcePartition: 0,
  sourceOffset: '1',
  consumerGroup: 'g',
  valueEncoding: 'utf8',
  headers: {},
  errorCode: 'X',
  reason: 'r',
  attempts: 1,
  failedAt: '2026-11-26T00:00:00.000Z',
  ...over,
});

/** Whether the topic's value class declares a `tenantId` property (read from its validation metadata). */
function declaresTenant(valueClass: new () => object): boolean {
  return getMetadataStorage()
    .getTargetValidationMetadatas(valueClass, '', true, false)
    .some((meta) => meta.propertyName === 'tenantId');
}

describe('deadLetterTenant', () => {
  it('reads the payload of exactly the topics whose value class carries tenantId', () => {
    const carrying = AllTopics.filter((topic) => declaresTenant(topic.value as new () => object)).map(
      (topic) => topic.name,
    );
    expect(carrying.length).toBeGreaterThan(0);
    expect([...TENANT_PAYLOAD_TOPICS].sort()).toEqual([...carrying].sort());
  });

  it('reads the key only of topics keyed by tenant', () => {
    for (const topic of AllTopics) {
      const value = { tenantId: 'tenant-from-value', campaignId: 'c', subscriberId: 's', key: 'k' };
      const keyedByTenant = (() => {
        try {
          return topic.keyOf(value as never) === 'tenant-from-value';
        } catch {
          return false;
        }
      })();
      expect({ topic: topic.name, keyed: TENANT_KEY_TOPICS.has(topic.name) }).toEqual({
        topic: topic.name,
        keyed: keyedByTenant,
      });
    }
  });

  it("takes the payload's tenantId", () => {
    const value = JSON.stringify({ tenantId: 't-1', campaignId: 'c' });
    expect(deadLetterTenant(letter({ value }), Topics.batches.name)).toBe('t-1');
    expect(deadLetterTenant(letter({ value, key: 'other' }), Topics.sendRequests.name)).toBe('t-1');
    expect(deadLetterTenant(letter({ value }), Topics.sendRetry10m.name)).toBe('t-1');
  });

  it('falls back to the key of a send request whose payload cannot be read', () => {
    for (const value of ['not json', '[1]', 'null', '{"tenantId":7}', undefined]) {
      expect(deadLetterTenant(letter({ value, key: 'tenant-k' }), Topics.sendRequests.name)).toBe('tenant-k');
    }
    const bytes = Buffer.from([0xff, 0xfe]).toString('base64');
    expect(
      deadLetterTenant(
        letter({ value: bytes, valueEncoding: 'base64', key: 'tenant-k' }),
        Topics.sendRequests.name,
      ),
    ).toBe('tenant-k');
  });

  it('is null when the tenant is unknown', () => {
    const withTenant = JSON.stringify({ tenantId: 't-1' });
    // An unparseable payload on a topic keyed by campaign.
    expect(deadLetterTenant(letter({ value: 'garbage', key: 'c-1' }), Topics.batches.name)).toBeNull();
    // Base64 bytes are not read even when they would decode to JSON.
    const base64 = Buffer.from(withTenant).toString('base64');
    expect(
      deadLetterTenant(letter({ value: base64, valueEncoding: 'base64' }), Topics.batches.name),
    ).toBeNull();
    // Topics without a tenant, whatever their payload says.
    expect(deadLetterTenant(letter({ value: withTenant }), Topics.providerEvents.name)).toBeNull();
    expect(deadLetterTenant(letter({ value: withTenant }), Topics.webhookRetry5s.name)).toBeNull();
    // Another namespace's topic, a topic outside the contracts.
    expect(deadLetterTenant(letter({ value: withTenant }), undefined)).toBeNull();
    expect(deadLetterTenant(letter({ value: withTenant }), 'ums.other.v1')).toBeNull();
    // A tenantId the tenant columns cannot hold, and an empty key.
    const long = JSON.stringify({ tenantId: 'x'.repeat(65) });
    expect(deadLetterTenant(letter({ value: long }), Topics.batches.name)).toBeNull();
    expect(deadLetterTenant(letter({ value: 'x', key: '' }), Topics.sendRequests.name)).toBeNull();
  });
});
