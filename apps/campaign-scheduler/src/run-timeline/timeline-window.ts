import type { RunTimelineSecond } from '@ums/contracts';

/** How much of a run's activity a timeline covers: its last 15 minutes. */
export const TIMELINE_SECONDS = 900;

/** Whole seconds, `from` included and `to` excluded. */
export interface TimelineWindow {
  readonly from: Date;
  readonly to: Date;
}

/** The stages a timeline counts per second, in the order of the timeline's fields. */
export const TIMELINE_STAGES = ['sent', 'delivered', 'read', 'failed', 'unknown'] as const;
export type TimelineStage = (typeof TIMELINE_STAGES)[number];

/** How many messages reached a stage in the second `offset` seconds after the window's start. */
export interface StageCount {
  readonly stage: TimelineStage;
  readonly offset: number;
  readonly count: number;
}

const SECOND_MS = 1_000;

function floorSecond(at: Date): number {
  return Math.floor(at.getTime() / SECOND_MS) * SECOND_MS;
}

/**
 * The window of a run's timeline: it ends with the second of the run's finished_at (before the run
 * finishes, the second of `now`) and starts with the second of its started_at or 15 minutes before
 * its end, whichever is later. Empty (from = to) for a run not started.
 */
export function timelineWindow(
  run: { readonly startedAt: Date | null; readonly finishedAt: Date | null },
  now: Date,
): TimelineWindow {
  const to = floorSecond(run.finishedAt ?? now) + SECOND_MS;
  if (run.startedAt === null) return { from: new Date(to), to: new Date(to) };
  const from = Math.min(to, Math.max(floorSecond(run.startedAt), to - TIMELINE_SECONDS * SECOND_MS));
  return { from: new Date(from), to: new Date(to) };
}

/** The window's length in seconds. */
export function windowSeconds(window: TimelineWindow): number {
  return Math.round((window.to.getTime() - window.from.getTime()) / SECOND_MS);
}

/** Every second of the window, oldest first, with the counts found (zero where none was). */
export function secondsOfWindow(window: TimelineWindow, counts: readonly StageCount[]): RunTimelineSecond[] {
  const length = windowSeconds(window);
  const rows = Array.from({ length }, () => ({ sent: 0, delivered: 0, read: 0, failed: 0, unknown: 0 }));
  for (const { stage, offset, count } of counts) {
    const row = rows[offset];
    if (row !== undefined) row[stage] += count;
  }
  const start = window.from.getTime();
  return rows.map((row, offset) => ({ at: new Date(start + offset * SECOND_MS).toISOString(), ...row }));
}
