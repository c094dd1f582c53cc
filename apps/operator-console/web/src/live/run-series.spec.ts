import type { RunCounters, RunSample } from '../api/api.types';
import {
  latestRates,
  limiterColumns,
  MAX_SAMPLES,
  mergeSamples,
  messageRates,
  reachedCounts,
} from './run-series';

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

function sample(second: number, counters: Partial<RunCounters>, rate: number | null = null): RunSample {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
    state: 'RUNNING' as RunSample['state'],
    counters: { ...zero, ...counters },
    rate: rate === null ? null : { rate, accepted: 1, congested: 2, errors5xx: 0, timeouts: 0, decreases: 0 },
  };
}

const T0 = Date.UTC(2026, 0, 1) / 1000;

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

describe('messageRates', () => {
  it('gives per-second deltas from cumulative samples, from the second sample on', () => {
    const columns = messageRates([
      sample(0, {}),
      sample(1, { pending: 90, sent: 10 }),
      sample(2, { pending: 80, sent: 12, delivered: 8 }),
    ]);
    expect(columns[0]).toEqual([T0 + 1, T0 + 2]);
    expect(columns.slice(1)).toEqual([
      [10, 10],
      [0, 8],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it('spreads a gap over its seconds and counts a decrease as zero', () => {
    const columns = messageRates([sample(0, { failed: 6 }), sample(3, { sent: 9, failed: 0 })]);
    expect(columns[0]).toEqual([T0 + 3]);
    expect(columns[1]).toEqual([3]);
    expect(columns[4]).toEqual([0]);
  });

  it('has no points for fewer than two samples', () => {
    expect(messageRates([sample(0, {})])).toEqual([[], [], [], [], [], []]);
    expect(latestRates(messageRates([]))).toEqual({ sent: 0, delivered: 0, read: 0, failed: 0, unknown: 0 });
  });

  it('tells the newest second', () => {
    const rates = latestRates(messageRates([sample(0, {}), sample(1, { sent: 4, unknown: 1 })]));
    expect(rates).toEqual({ sent: 4, delivered: 0, read: 0, failed: 0, unknown: 1 });
  });
});

describe('limiterColumns', () => {
  it('gives the rate and the 429s, null where a second has no rate row', () => {
    expect(limiterColumns([sample(0, {}, 50), sample(1, {})])).toEqual([
      [T0, T0 + 1],
      [50, null],
      [2, null],
    ]);
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
