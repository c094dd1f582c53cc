import { periodLabel, quotaPeriodsAt, quotaRetentionFloor } from './quota-periods';

describe('quota periods', () => {
  it('names the UTC day and month of an instant, whatever the local time zone', () => {
    expect(quotaPeriodsAt(new Date('2026-11-28T23:59:59.999Z'))).toEqual({
      day: 'D2026-11-28',
      month: 'M2026-11',
    });
    // 00:30 on 1 December in Berlin is still 30 November in UTC.
    expect(quotaPeriodsAt(new Date('2026-12-01T00:30:00+01:00'))).toEqual({
      day: 'D2026-11-30',
      month: 'M2026-11',
    });
    expect(quotaPeriodsAt(new Date('2027-01-01T00:00:00.000Z'))).toEqual({
      day: 'D2027-01-01',
      month: 'M2027-01',
    });
  });

  it('fits the 12 characters of credit_quota_usage.period and sorts as the periods do', () => {
    const keys = [
      '2026-09-30T12:00:00Z',
      '2026-10-01T00:00:00Z',
      '2026-10-10T00:00:00Z',
      '2027-02-01T00:00:00Z',
    ].map((at) => quotaPeriodsAt(new Date(at)));
    for (const key of keys) {
      expect(key.day).toHaveLength(11);
      expect(key.month).toHaveLength(8);
    }
    const days = keys.map((k) => k.day);
    expect([...days].sort()).toEqual(days);
    const months = keys.map((k) => k.month);
    expect([...months].sort()).toEqual(months);
  });

  it('shows a key without its kind letter', () => {
    expect(periodLabel('D2026-11-28')).toBe('2026-11-28');
    expect(periodLabel('M2026-11')).toBe('2026-11');
  });

  it('keeps the given number of days, and the month the oldest kept day is in', () => {
    expect(quotaRetentionFloor(new Date('2026-11-28T10:00:00Z'), 62)).toEqual({
      day: 'D2026-09-27',
      month: 'M2026-09',
    });
  });
});
