import { MessageBatchV1, SendRetryTiers } from '@ums/contracts';
import { defineTopic } from '@ums/contracts';
import { nextHop, parseDueAt } from './delay-tier-schedule';

describe('nextHop', () => {
  const now = 1_000_000;

  it('walks the tiers in order, then dead-letters', () => {
    const hops = [1, 2, 3, 4, 5].map((attempt) => nextHop(SendRetryTiers, attempt, now, 0));
    expect(hops.map((h) => (h.kind === 'tier' ? h.topic.name : h.kind))).toEqual([
      'ums.send.retry-5s.v1',
      'ums.send.retry-30s.v1',
      'ums.send.retry-2m.v1',
      'ums.send.retry-10m.v1',
      'dead-letter',
    ]);
    const first = hops[0];
    expect(first?.kind === 'tier' && first.dueAt).toBe(now + 5_000);
  });

  it('adds jitter that only lengthens the delay, bounded by the ratio', () => {
    const low = nextHop(SendRetryTiers, 2, now, 0.2, () => 0);
    const high = nextHop(SendRetryTiers, 2, now, 0.2, () => 0.999);
    expect(low.kind === 'tier' && low.dueAt).toBe(now + 30_000);
    expect(high.kind === 'tier' && high.dueAt).toBe(now + 30_000 + 5_994);
  });

  it('dead-letters at once when there are no tiers', () => {
    expect(nextHop([], 1, now, 0.1)).toEqual({ kind: 'dead-letter', attempt: 1 });
  });

  it('refuses a tier topic without a delay', () => {
    const notATier = defineTopic({
      name: 'ums.test.plain.v1',
      value: MessageBatchV1,
      keyOf: (v) => v.campaignId,
      partitions: 1,
      retentionMs: 1000,
      description: 'test',
    });
    expect(() => nextHop([notATier], 1, now, 0)).toThrow('not a delay tier');
  });
});

describe('parseDueAt', () => {
  it('reads epoch milliseconds and treats garbage as due now', () => {
    expect(parseDueAt('1700000000000')).toBe(1_700_000_000_000);
    expect(parseDueAt(undefined)).toBe(0);
    expect(parseDueAt('soon')).toBe(0);
    expect(parseDueAt('-5')).toBe(0);
  });
});
