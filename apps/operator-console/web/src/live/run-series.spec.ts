import type { RunCounters, RunSample } from '../api/api.types';
import { latestRates, MAX_SAMPLES, mergeSamples, reachedCounts } from './run-series';
import { mergedMessageColumns } from './run-timeline-merge';

const zero: RunCounters = {
  total: 100,
  pending: 100,
  sending: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  unknown: 0,
  skipped: 0,
};

function sample(second: number, counters: Partial<RunCounters>): RunSample {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
    state: 'RUNNING' as RunSample['state'],
    counters: { ...zero, ...counters },
    rate: null,
  };
}

describe('reachedCounts', () => {
  it('counts delivered and read messages as sent, read ones as delivered', () => {
    expect(reachedCounts({ ...zero, sent: 5, delivered: 3, read: 2, failed: 1, unknown: 4 })).toEqual({
      sent: 10,
      delivered: 5,
      read: 2,
      failed: 1,
      unknown: 4,
    });
  });
});

describe('latestRates', () => {
  it('is zeros without points', () => {
    expect(latestRates(mergedMessageColumns([sample(0, {})], null))).toEqual({
      sent: 0,
      delivered: 0,
      read: 0,
      failed: 0,
      unknown: 0,
    });
  });

  it('tells the newest second', () => {
    const rates = latestRates(
      mergedMessageColumns([sample(0, {}), sample(1, { sent: 4, unknown: 1 })], null),
    );
    expect(rates).toEqual({ sent: 4, delivered: 0, read: 0, failed: 0, unknown: 1 });
  });
});

describe('mergeSamples', () => {
  it('orders by second, lets a newer sample of a second win and keeps the newest MAX_SAMPLES', () => {
    const merged = mergeSamples([sample(2, {}), sample(0, {})], [sample(2, { sent: 1 }), sample(1, {})]);
    expect(merged.map((s) => s.at.slice(17, 19))).toEqual(['00', '01', '02']);
    expect(merged[2]?.counters.sent).toBe(1);
    const many = Array.from({ length: MAX_SAMPLES + 5 }, (_, i) => sample(i, {}));
    const kept = mergeSamples([], many);
    expect(kept).toHaveLength(MAX_SAMPLES);
    expect(kept[0]).toBe(many[5]);
  });
});
