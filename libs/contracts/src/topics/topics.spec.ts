import { Channel } from '../enums/channel.enum';
import { SendLane } from '../messages/message-batch.message';
import { AllTopics, SendRetryTiers, Topics, WebhookRetryTiers } from './topics';
import { defineTopic } from './topic-definition';

describe('Topics', () => {
  it('names every topic uniquely with a version', () => {
    const names = AllTopics.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^ums\.[a-z0-9.-]+\.v\d+$/);
  });

  it('orders delay tiers shortest first, and only tiers carry a delay', () => {
    for (const tiers of [SendRetryTiers, WebhookRetryTiers]) {
      const delays = tiers.map((t) => t.delayMs ?? 0);
      expect(delays).toEqual([...delays].sort((a, b) => a - b));
      expect(delays.every((d) => d > 0)).toBe(true);
    }
    const tierNames = new Set<string>([...SendRetryTiers, ...WebhookRetryTiers].map((t) => t.name));
    for (const t of AllTopics) if (!tierNames.has(t.name)) expect(t.delayMs).toBeUndefined();
  });

  it('keys campaign traffic by campaign id', () => {
    const batch = {
      batchId: 'b',
      lane: SendLane.Bulk,
      tenantId: 't',
      campaignId: 'camp-9',
      seq: 0,
      leaseEpoch: 0,
      credentialId: 'c',
      channel: Channel.Sms,
      items: [],
      createdAt: '',
    };
    expect(Topics.batches.keyOf(batch)).toBe('camp-9');
    expect(Topics.sendRetry30s.keyOf(batch)).toBe('camp-9');
  });

  it('refuses badly named topics', () => {
    expect(() => defineTopic({ ...Topics.batches, name: 'batches' })).toThrow('ums.<area>.<name>.v<N>');
  });
});
