import type { RunCounters, RunSample } from '../api/api.types';

/** The series of the "Messages per second" chart, in its order. */
export const MESSAGE_SERIES = ['sent', 'delivered', 'read', 'failed', 'unknown'] as const;
export type MessageSeries = (typeof MESSAGE_SERIES)[number];

/** uPlot's aligned data: x values (Unix seconds), then one column per series (null: no value). */
export type ChartColumns = [number[], ...(number | null)[][]];

/** How much history the run page keeps: what the server keeps (15 minutes). */
export const MAX_SAMPLES = 900;

/**
 * How many messages have reached each stage so far. The counters count messages by their current state
 * (a SENT message that is delivered leaves `sent`), so "sent" is every message at SENT or beyond.
 */
export function reachedCounts(counters: RunCounters): Record<MessageSeries, number> {
  return {
    sent: counters.sent + counters.delivered + counters.read,
    delivered: counters.delivered + counters.read,
    read: counters.read,
    failed: counters.failed,
    unknown: counters.unknown,
  };
}

/** Unix seconds of an ISO-8601 time (NaN when not one). */
export function secondsOf(at: string): number {
  return Math.floor(Date.parse(at) / 1000);
}

/**
 * The samples kept, oldest first, one per second: `incoming` replaces a kept sample of the same second,
 * and only the newest MAX_SAMPLES stay.
 */
export function mergeSamples(kept: readonly RunSample[], incoming: readonly RunSample[]): RunSample[] {
  const bySecond = new Map<number, RunSample>();
  for (const sample of [...kept, ...incoming]) {
    const second = secondsOf(sample.at);
    if (!Number.isNaN(second)) bySecond.set(second, sample);
  }
  const merged = [...bySecond.entries()].sort(([a], [b]) => a - b).map(([, sample]) => sample);
  return merged.slice(Math.max(0, merged.length - MAX_SAMPLES));
}

/** The last value of each message series (what the chart's newest second shows), or zeros. */
export function latestRates(columns: ChartColumns): Record<MessageSeries, number> {
  const last = columns[0].length - 1;
  const value = (index: number): number => (last < 0 ? 0 : (columns[index + 1]?.[last] ?? 0));
  return {
    sent: value(0),
    delivered: value(1),
    read: value(2),
    failed: value(3),
    unknown: value(4),
  };
}
