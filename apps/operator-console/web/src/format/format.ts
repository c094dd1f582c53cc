import type { RunCounters } from '../api/api.types';

const COUNT = new Intl.NumberFormat('en-US');
const RATE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** 12,345 */
export function formatCount(value: number): string {
  return COUNT.format(value);
}

/** 12.5 (one decimal at most). */
export function formatRate(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? '—' : RATE.format(value);
}

/** "1 message", "47 messages". */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** An ISO-8601 time as `2026-11-24 10:00:00 UTC`; '—' for none; the input itself when it is not a time. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  return `${new Date(time).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** 1.5 MB, 300 kB, 12 B. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${RATE.format(bytes / 1000)} kB`;
  return `${RATE.format(bytes / 1_000_000)} MB`;
}

/** Messages that left the queue: everything but PENDING and SENDING. */
export function finishedCount(counters: RunCounters): number {
  return Math.max(0, counters.total - counters.pending - counters.sending);
}

/** Finished messages as a whole percentage of the total (100 only when all are finished; 0 of 0 is 0). */
export function progressPercent(counters: RunCounters): number {
  if (counters.total <= 0) return 0;
  return Math.min(100, Math.floor((finishedCount(counters) * 100) / counters.total));
}

/** A whole percentage of `loaded` in `total` (0 when the total is unknown). */
export function percentOf(loaded: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.max(0, Math.floor((loaded * 100) / total)));
}

/**
 * A `datetime-local` input's value (local time, no zone) as RFC 3339 UTC, or null when it is not one.
 * `offsetMinutes` is Date's getTimezoneOffset for that time (the browser's zone by default).
 */
export function localInputToUtc(value: string, offsetMinutes?: number): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const local = new Date(y, mo - 1, d, h, mi, Number.isNaN(s) ? 0 : s);
  if (Number.isNaN(local.getTime())) return null;
  const offset = offsetMinutes ?? local.getTimezoneOffset();
  const utc = Date.UTC(y, mo - 1, d, h, mi, Number.isNaN(s) ? 0 : s) + offset * 60_000;
  return new Date(utc).toISOString();
}

/** The `datetime-local` value of a time (in the browser's zone), to minutes. */
export function utcToLocalInput(time: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}` +
    `T${pad(time.getHours())}:${pad(time.getMinutes())}`
  );
}
