import {
  acceptedOf,
  ATTEMPT_UNIT,
  attemptsOf,
  CredentialStats,
  DUPLICATE_IDS_KEPT,
} from './credential-stats';
import { PerSecondSeries } from './per-second-series';

describe('CredentialStats', () => {
  it('counts accepted sends and attempts per message id in one number', () => {
    const stats = new CredentialStats('c');
    expect(stats.attemptMessage('m1', true)).toBe('new'); // throttled first
    expect(stats.acceptMessage('m1', true)).toBe('known');
    expect(stats.acceptMessage('m2', true)).toBe('new');
    const m1 = stats.messages.get('m1') ?? 0;
    expect([acceptedOf(m1), attemptsOf(m1)]).toEqual([1, 2]);
    expect(stats.distinctMessages).toBe(2);
    expect(stats.duplicates).toBe(0);
  });

  it('reports a message id accepted more than once as one duplicate, however often', () => {
    const stats = new CredentialStats('c');
    for (let i = 0; i < 4; i++) stats.acceptMessage('m1', true);
    stats.acceptMessage('m2', true);
    stats.acceptMessage('m2', true);
    expect(stats.duplicates).toBe(2);
    expect(stats.duplicateIds).toEqual(['m1', 'm2']);
    expect(acceptedOf(stats.messages.get('m1') ?? 0)).toBe(4);
    expect(stats.distinctMessages).toBe(2);
  });

  it('keeps the first duplicate ids only', () => {
    const stats = new CredentialStats('c');
    for (let i = 0; i < DUPLICATE_IDS_KEPT + 20; i++) {
      stats.acceptMessage(`m${i}`, true);
      stats.acceptMessage(`m${i}`, true);
    }
    expect(stats.duplicates).toBe(DUPLICATE_IDS_KEPT + 20);
    expect(stats.duplicateIds).toHaveLength(DUPLICATE_IDS_KEPT);
    expect(stats.duplicateIds[0]).toBe('m0');
  });

  it('stops tracking new ids past the budget but keeps counting known ones', () => {
    const stats = new CredentialStats('c');
    stats.acceptMessage('known', true);
    expect(stats.acceptMessage('new', false)).toBe('untracked');
    expect(stats.attemptMessage('new', false)).toBe('untracked');
    expect(stats.acceptMessage('known', false)).toBe('known');
    expect(stats.messages.has('new')).toBe(false);
    expect(stats.duplicates).toBe(1);
  });

  it('holds large counts without the two halves mixing', () => {
    const stats = new CredentialStats('c');
    for (let i = 0; i < 5000; i++) stats.attemptMessage('m', true);
    for (let i = 0; i < 3000; i++) stats.acceptMessage('m', true);
    const packed = stats.messages.get('m') ?? 0;
    expect(acceptedOf(packed)).toBe(3000);
    expect(attemptsOf(packed)).toBe(8000);
    expect(Number.isSafeInteger(packed * 1000)).toBe(true);
    expect(ATTEMPT_UNIT).toBeGreaterThan(1_000_000);
  });

  it('reset forgets ids, counts and the capacity window', () => {
    const stats = new CredentialStats('c');
    stats.acceptMessage('m', true);
    stats.counts.accepted = 1;
    stats.window.add(1000, 5);
    stats.reset();
    expect(stats.messages.size).toBe(0);
    expect(stats.counts.accepted).toBe(0);
    expect(stats.window.count(1001)).toBe(0);
    expect(stats.distinctMessages).toBe(0);
  });
});

describe('PerSecondSeries', () => {
  it('keeps the last N seconds, oldest first, and forgets older ones', () => {
    const series = new PerSecondSeries(3);
    series.add(1_000, 'accepted', 2);
    series.add(1_999, 'accepted', 1);
    series.add(2_500, 'throttled', 4);
    series.add(4_100, 'errors', 1);
    expect(series.snapshot(4_200)).toEqual([
      { second: 2, accepted: 0, throttled: 4, rejected: 0, errors: 0 },
      { second: 4, accepted: 0, throttled: 0, rejected: 0, errors: 1 },
    ]);
    // Second 1 shared its slot with second 4: reused, not added to.
    series.add(7_000, 'accepted', 1);
    expect(series.snapshot(7_000)).toEqual([
      { second: 7, accepted: 1, throttled: 0, rejected: 0, errors: 0 },
    ]);
  });
});
