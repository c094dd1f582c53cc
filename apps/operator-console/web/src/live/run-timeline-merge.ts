import type { RunSample, RunTimeline } from '../api/api.types';
import { type ChartColumns, MAX_SAMPLES, MESSAGE_SERIES, reachedCounts, secondsOf } from './run-series';

/*
 * A chart point's x is the end of the second it counts: a live sample at second S gives what happened
 * since the sample at S - 1 (x = S), and the timeline's second T (its counts of [T, T + 1)) is x = T + 1.
 */

/** States a run does not leave without an operator's retry (libs/domain's isFinished). */
const FINISHED_STATES: ReadonlySet<string> = new Set(['COMPLETED', 'STOPPED', 'FAILED']);

/**
 * How long after the timeline's end the live stream may start and still continue it: the stream opens
 * with the page, as the timeline is read, but its first sample may come a few seconds later.
 */
const JOIN_SECONDS = 5;

export function isFinishedState(state: string | undefined): boolean {
  return state !== undefined && FINISHED_STATES.has(state);
}

/** The x of the timeline's last second (its `to`), or undefined without a timeline. */
function timelineEnd(timeline: RunTimeline | null): number | undefined {
  return timeline === null ? undefined : secondsOf(timeline.to);
}

/**
 * The index of the first live sample the charts use. Samples of a finished run that start well after
 * the timeline's end (a run opened long after it finished) only repeat its final counters: they are
 * left out until the run goes on again (a retry), so the charts show the run's last activity.
 */
export function firstChartedSample(samples: readonly RunSample[], timeline: RunTimeline | null): number {
  const end = timelineEnd(timeline);
  if (end === undefined) return 0;
  const index = samples.findIndex(
    (sample) => secondsOf(sample.at) <= end + JOIN_SECONDS || !isFinishedState(sample.state),
  );
  return index < 0 ? samples.length : index;
}

/**
 * uPlot's columns of the points, oldest first: the newest MAX_SAMPLES seconds, with a point of nulls
 * where the seconds jump (so no line is drawn across a stretch without figures).
 */
function columnsOf(points: ReadonlyMap<number, readonly (number | null)[]>, width: number): ChartColumns {
  const xs = [...points.keys()].sort((a, b) => a - b);
  const newest = xs.at(-1) ?? 0;
  const x: number[] = [];
  const columns: (number | null)[][] = Array.from({ length: width }, () => []);
  for (const second of xs) {
    if (second <= newest - MAX_SAMPLES) continue;
    const previous = x.at(-1);
    if (previous !== undefined && second - previous > 1) {
      x.push(previous + 1);
      for (const column of columns) column.push(null);
    }
    x.push(second);
    const values = points.get(second) ?? [];
    columns.forEach((column, index) => column.push(values[index] ?? null));
  }
  return [x, ...columns];
}

/**
 * The "Messages per second" columns: the timeline's counts, and the live samples' rates where the
 * stream covers a second (a sample one second after the one before). A gap between two samples (a
 * reconnect) spreads its counts evenly over the seconds the timeline does not cover.
 */
export function mergedMessageColumns(
  samples: readonly RunSample[],
  timeline: RunTimeline | null,
): ChartColumns {
  const points = new Map<number, number[]>();
  for (const second of timeline?.seconds ?? []) {
    points.set(
      secondsOf(second.at) + 1,
      MESSAGE_SERIES.map((name) => second[name]),
    );
  }
  const fromTimeline = new Set(points.keys());
  for (let i = Math.max(1, firstChartedSample(samples, timeline)); i < samples.length; i++) {
    const previous = samples[i - 1] as RunSample;
    const current = samples[i] as RunSample;
    const [start, end] = [secondsOf(previous.at), secondsOf(current.at)];
    const seconds = end - start;
    if (!(seconds > 0)) continue;
    const before = reachedCounts(previous.counters);
    const now = reachedCounts(current.counters);
    const rates = MESSAGE_SERIES.map((name) => Math.max(0, now[name] - before[name]) / seconds);
    if (seconds === 1) points.set(end, rates);
    else {
      for (let x = start + 1; x <= end; x++) if (!fromTimeline.has(x)) points.set(x, rates);
    }
  }
  return columnsOf(points, MESSAGE_SERIES.length);
}

/**
 * The "Rate limiter" columns (AIMD rate, 429s): the timeline's rows, and the live samples' where they
 * have one (a live sample without a row leaves the timeline's row of its second, if any).
 */
export function mergedLimiterColumns(
  samples: readonly RunSample[],
  timeline: RunTimeline | null,
): ChartColumns {
  const points = new Map<number, (number | null)[]>();
  for (const second of timeline?.rate ?? []) {
    points.set(secondsOf(second.at) + 1, [second.rate, second.congested]);
  }
  for (const sample of samples.slice(firstChartedSample(samples, timeline))) {
    const x = secondsOf(sample.at);
    if (Number.isNaN(x)) continue;
    if (sample.rate !== null) points.set(x, [sample.rate.rate, sample.rate.congested]);
    else if (!points.has(x)) points.set(x, [null, null]);
  }
  return columnsOf(points, 2);
}

/** How many seconds of the columns have a value above 0 in any series (what a chart shows happening). */
export function activeSeconds(columns: ChartColumns): number {
  const [x, ...series] = columns;
  return x.filter((_, index) => series.some((column) => (column[index] ?? 0) > 0)).length;
}

/**
 * Whether the timeline is worth reading again now that the run finished: the newest samples show the
 * run turn finished, and the live stream missed a second between the timeline's end and that turn (or
 * there is no timeline yet). A run seen finished from the start needs none: its timeline was read
 * finished.
 */
export function needsFinalTimeline(timeline: RunTimeline | null, samples: readonly RunSample[]): boolean {
  let turned = -1;
  for (let i = samples.length - 1; i > 0 && turned < 0; i--) {
    const finished = isFinishedState((samples[i] as RunSample).state);
    if (finished && !isFinishedState((samples[i - 1] as RunSample).state)) turned = i;
  }
  if (turned < 0) return false;
  const end = timelineEnd(timeline);
  if (end === undefined) return true;
  const seen = new Set(samples.map((sample) => secondsOf(sample.at)));
  const finishedAt = secondsOf((samples[turned] as RunSample).at);
  for (let x = end + 1; x <= finishedAt; x++) if (!seen.has(x) || !seen.has(x - 1)) return true;
  return false;
}
