import type { RunCounters, RunSample, RunTimeline } from '../api/api.types';
import {
  activeSeconds,
  firstChartedSample,
  mergedLimiterColumns,
  mergedMessageColumns,
  needsFinalTimeline,
} from './run-timeline-merge';

const T0 = Date.UTC(2026, 0, 1) / 1000;
const iso = (second: number): string => new Date((T0 + second) * 1000).toISOString();

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

function sample(
  second: number,
  counters: Partial<RunCounters>,
  options: { state?: string; rate?: number } = {},
): RunSample {
  return {
    at: iso(second),
    state: (options.state ?? 'RUNNING') as RunSample['state'],
    counters: { ...zero, ...counters },
    rate:
      options.rate === undefined
        ? null
        : { rate: options.rate, accepted: 1, congested: 2, errors5xx: 0, timeouts: 0, decreases: 0 },
  };
}

/** A timeline of seconds [from, to) with `sent` counts per second (the others 0) and rate rows. */
function timeline(
  from: number,
  sent: readonly number[],
  rates: readonly [number, number][] = [],
): RunTimeline {
  return {
    from: iso(from),
    to: iso(from + sent.length),
    seconds: sent.map((count, i) => ({
      at: iso(from + i),
      sent: count,
      delivered: 0,
      read: 0,
      failed: 0,
      unknown: 0,
    })),
    rate: rates.map(([second, rate]) => ({
      at: iso(second),
      rate,
      accepted: 0,
      congested: 1,
      errors5xx: 0,
      timeouts: 0,
      decreases: 0,
    })),
  };
}

describe('mergedMessageColumns', () => {
  it('charts the timeline alone (each second at its end) before any live sample', () => {
    const columns = mergedMessageColumns([], timeline(0, [3, 0, 5]));
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3]);
    expect(columns[1]).toEqual([3, 0, 5]);
    expect(columns[5]).toEqual([0, 0, 0]);
  });

  it("uses the live rates where the stream covers a second, and the timeline's counts elsewhere", () => {
    // Timeline seconds 0..3 (x 1..4); live samples at 3, 4, 5, 6: x 4, 5, 6 from the stream.
    const columns = mergedMessageColumns(
      [sample(3, { sent: 10 }), sample(4, { sent: 17 }), sample(5, { sent: 20 }), sample(6, { sent: 26 })],
      timeline(0, [1, 2, 3, 4]),
    );
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5, T0 + 6]);
    expect(columns[1]).toEqual([1, 2, 3, 7, 3, 6]);
  });

  it('spreads a gap of the stream over the seconds the timeline does not cover', () => {
    // Samples at 2 and 6 (a reconnect): x 3..6, the timeline covers x 1..4.
    const columns = mergedMessageColumns(
      [sample(2, { sent: 0 }), sample(6, { sent: 8 })],
      timeline(0, [1, 1, 1, 1]),
    );
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5, T0 + 6]);
    expect(columns[1]).toEqual([1, 1, 1, 1, 2, 2]);
  });

  it('charts the live samples alone without a timeline, a gap spread over its seconds', () => {
    const columns = mergedMessageColumns(
      [sample(0, {}), sample(1, { sent: 4 }), sample(3, { sent: 8 })],
      null,
    );
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3]);
    expect(columns[1]).toEqual([4, 2, 2]);
  });

  it('breaks the line where the seconds jump, with a point of nulls', () => {
    const columns = mergedMessageColumns([sample(20, {}), sample(21, { sent: 2 })], timeline(0, [5, 5]));
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3, T0 + 21]);
    expect(columns[1]).toEqual([5, 5, null, 2]);
  });

  it('leaves out the samples of a run opened long after it finished, until it goes on again', () => {
    const finished = { state: 'COMPLETED' };
    const late = [sample(600, { sent: 9 }, finished), sample(601, { sent: 9 }, finished)];
    expect(mergedMessageColumns(late, timeline(0, [4, 5]))[1]).toEqual([4, 5]);
    const retried = [...late, sample(602, { sent: 12 }), sample(603, { sent: 15 })];
    const columns = mergedMessageColumns(retried, timeline(0, [4, 5]));
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3, T0 + 602, T0 + 603]);
    expect(columns[1]).toEqual([4, 5, null, 3, 3]);
  });

  it('keeps the newest 15 minutes', () => {
    const columns = mergedMessageColumns(
      [sample(1_000, {}), sample(1_001, { sent: 1 })],
      timeline(0, [1, 1]),
    );
    expect(columns[0]).toEqual([T0 + 1_001]);
  });
});

describe('mergedLimiterColumns', () => {
  it("uses the live sample's row, else the timeline's row of the second, else a gap", () => {
    // Timeline rows for seconds 0 and 2 (x 1 and 3); samples at x 3 (no row), 4 (row), 5 (no row).
    const columns = mergedLimiterColumns(
      [sample(3, {}), sample(4, {}, { rate: 40 }), sample(5, {})],
      timeline(
        0,
        [0, 0, 0, 0],
        [
          [0, 10],
          [2, 30],
        ],
      ),
    );
    expect(columns[0]).toEqual([T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5]);
    expect(columns[1]).toEqual([10, null, 30, 40, null]);
    expect(columns[2]).toEqual([1, null, 1, 2, null]);
  });
});

describe('firstChartedSample', () => {
  it('charts every sample without a timeline, and those that continue it with one', () => {
    const finished = { state: 'STOPPED' };
    expect(firstChartedSample([sample(100, {}, finished)], null)).toBe(0);
    expect(firstChartedSample([sample(7, {}, finished)], timeline(0, [1, 1]))).toBe(0);
    expect(firstChartedSample([sample(100, {}, finished), sample(101, {})], timeline(0, [1, 1]))).toBe(1);
    expect(firstChartedSample([sample(100, {}, finished)], timeline(0, [1, 1]))).toBe(1);
  });
});

describe('needsFinalTimeline', () => {
  const running = (second: number): RunSample => sample(second, {});
  const done = (second: number): RunSample => sample(second, {}, { state: 'COMPLETED' });

  it('is not needed before the run turns finished, nor for a run seen finished from the start', () => {
    expect(needsFinalTimeline(timeline(0, [1]), [running(1), running(2)])).toBe(false);
    expect(needsFinalTimeline(timeline(0, [1]), [done(50), done(51)])).toBe(false);
  });

  it('is not needed when the stream covered every second from the timeline to the finish', () => {
    expect(needsFinalTimeline(timeline(0, [1, 1]), [running(1), running(2), running(3), done(4)])).toBe(
      false,
    );
  });

  it('is needed when the stream missed a second after the timeline, or there is no timeline', () => {
    expect(needsFinalTimeline(timeline(0, [1, 1]), [running(1), running(2), running(4), done(5)])).toBe(true);
    expect(needsFinalTimeline(timeline(0, [1, 1]), [running(6), done(7)])).toBe(true);
    expect(needsFinalTimeline(null, [running(6), done(7)])).toBe(true);
  });
});

describe('activeSeconds', () => {
  it('counts the seconds with a value above 0 in any series', () => {
    expect(
      activeSeconds([
        [1, 2, 3, 4],
        [0, 2, null, 0],
        [0, 0, null, 1],
      ]),
    ).toBe(2);
    expect(activeSeconds([[]])).toBe(0);
  });
});
