import type { RunCounters } from '../api/api.types';
import {
  finishedCount,
  formatBytes,
  formatCount,
  formatRate,
  formatTime,
  localInputToUtc,
  percentOf,
  plural,
  progressPercent,
} from './format';

const counters: RunCounters = {
  total: 3,
  pending: 1,
  sending: 1,
  sent: 0,
  delivered: 1,
  read: 0,
  failed: 0,
  unknown: 0,
  skipped: 0,
};

describe('format', () => {
  it('formats counts, rates and plurals', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatRate(12.345)).toBe('12.3');
    expect(formatRate(null)).toBe('—');
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(47, 'message')).toBe('47 messages');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(2_500_000)).toBe('2.5 MB');
  });

  it('shows times in UTC to the second', () => {
    expect(formatTime('2026-11-24T10:00:00.123Z')).toBe('2026-11-24 10:00:00 UTC');
    expect(formatTime('2026-11-24T12:00:00+02:00')).toBe('2026-11-24 10:00:00 UTC');
    expect(formatTime(null)).toBe('—');
    expect(formatTime('soon')).toBe('soon');
  });

  it('counts finished messages and their share, whole percent rounded down', () => {
    expect(finishedCount(counters)).toBe(1);
    expect(progressPercent(counters)).toBe(33);
    expect(progressPercent({ ...counters, pending: 0, sending: 0 })).toBe(100);
    expect(progressPercent({ ...counters, total: 0, pending: 0, sending: 0 })).toBe(0);
    expect(percentOf(1, 3)).toBe(33);
    expect(percentOf(5, 0)).toBe(0);
  });

  it('turns a datetime-local value into UTC with the given zone offset', () => {
    expect(localInputToUtc('2026-11-24T10:30', -120)).toBe('2026-11-24T08:30:00.000Z');
    expect(localInputToUtc('2026-11-24T10:30:15', 0)).toBe('2026-11-24T10:30:15.000Z');
    expect(localInputToUtc('yesterday', 0)).toBeNull();
  });
});
