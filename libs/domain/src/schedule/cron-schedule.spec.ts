import {
  isValidTimeZone,
  MAX_COUNTED_MISSED_FIRES,
  nextFireAfter,
  parseCronSchedule,
  planCronFire,
} from './cron-schedule';

const at = (iso: string) => new Date(iso);
const MINUTE = 60_000;

/** Every fire in (from, to], by repeated nextFireAfter: the reference the planner is checked against. */
function firesBetween(expression: string, tz: string, from: Date, to: Date): Date[] {
  const fires: Date[] = [];
  for (let t = nextFireAfter(expression, tz, from); t <= to; t = nextFireAfter(expression, tz, t))
    fires.push(t);
  return fires;
}

describe('isValidTimeZone', () => {
  it.each([
    'UTC',
    'Etc/UTC',
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'Etc/GMT+5',
  ])('accepts %s', (tz) => expect(isValidTimeZone(tz)).toBe(true));

  it.each([
    '',
    ' ',
    'Mars/Olympus_Mons',
    'Europe/Berlinn',
    '+02:00',
    'UTC+2',
    'Europe/Berlin ',
    '../etc/passwd',
  ])('refuses %j', (tz) => expect(isValidTimeZone(tz)).toBe(false));
});

describe('parseCronSchedule', () => {
  it.each([
    '* * * * *',
    '0 9 * * 1-5',
    '*/15 8-18 * * MON-FRI',
    '0 0 1,15 * *',
    '30 2 * jan,jul sun',
    '0 0 L * *',
    '0 12 * * 5L',
    '0 9 * * 1#2',
    '0 0 29 2 *',
    '  0   9 * * *  ',
    '0 0 ? * 7',
  ])('accepts %j', (expression) => {
    expect(parseCronSchedule(expression, 'Europe/Berlin')).toEqual({ ok: true });
  });

  it.each([
    ['', 'empty: expected 5 fields (minute hour day-of-month month day-of-week)'],
    ['   ', 'empty: expected 5 fields'],
    ['0 * * * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 6: a seconds field'],
    ['* * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 4'],
    ['0 0 1 1 * 2030 x', 'got 7'],
    ['@daily', 'macros such as @daily are not supported'],
    ['60 * * * *', 'minute field "60": '],
    ['0 24 * * *', 'hour field "24": '],
    ['0 0 32 * *', 'day-of-month field "32": '],
    ['0 0 0 * *', 'day-of-month field "0": '],
    ['0 0 * 13 *', 'month field "13": '],
    ['0 0 * * 8', 'day-of-week field "8": '],
    ['0 0 * * funday', 'day-of-week field "funday": '],
    ['*/0 * * * *', 'minute field "*/0": '],
    ['5-1 * * * *', 'minute field "5-1": '],
    ['a b c d e', 'minute field "a": '],
    ['H * * * *', 'minute field "H": H (hashed) values are not supported'],
    ['0 H/2 * * *', 'hour field "H/2": H (hashed) values are not supported'],
    ['0 0 30 2 *', 'no date matches the expression'],
    ['0 0 31 4,6 *', 'no date matches the expression'],
  ])('refuses %j: %s', (expression, reason) => {
    const result = parseCronSchedule(expression, 'UTC');
    expect(result).toEqual({ ok: false, field: 'cron', reason: expect.stringContaining(reason) as unknown });
  });

  it('accepts THU (an alias, not a hashed value)', () => {
    expect(parseCronSchedule('0 9 * * THU', 'UTC')).toEqual({ ok: true });
  });

  it.each(['Mars/Olympus_Mons', '', '+01:00'])('refuses the time zone %j', (tz) => {
    expect(parseCronSchedule('0 9 * * *', tz)).toEqual({
      ok: false,
      field: 'timeZone',
      reason: `unknown time zone ${JSON.stringify(tz)} (use an IANA name)`,
    });
  });

  it('reports the expression first when both are wrong', () => {
    expect(parseCronSchedule('0 0 * * * *', 'Nowhere/Else')).toMatchObject({ ok: false, field: 'cron' });
  });
});

describe('nextFireAfter', () => {
  it('is strictly after the given instant', () => {
    expect(nextFireAfter('0 * * * *', 'UTC', at('2025-01-01T10:00:00.000Z'))).toEqual(
      at('2025-01-01T11:00:00Z'),
    );
    expect(nextFireAfter('0 * * * *', 'UTC', at('2025-01-01T09:59:59.999Z'))).toEqual(
      at('2025-01-01T10:00:00Z'),
    );
    expect(nextFireAfter('0 * * * *', 'UTC', at('2025-01-01T10:00:00.001Z'))).toEqual(
      at('2025-01-01T11:00:00Z'),
    );
  });

  it('fires in the local time of Europe/Berlin, across the spring DST change', () => {
    // Mondays 09:00 local: CET (UTC+1) on 24 March, CEST (UTC+2) from 30 March 2025.
    expect(
      firesBetween('0 9 * * 1', 'Europe/Berlin', at('2025-03-20T00:00Z'), at('2025-04-08T00:00Z')),
    ).toEqual([at('2025-03-24T08:00Z'), at('2025-03-31T07:00Z'), at('2025-04-07T07:00Z')]);
  });

  it('fires daily at 09:00 in America/New_York across both DST changes', () => {
    expect(
      firesBetween('0 9 * * *', 'America/New_York', at('2025-03-08T00:00Z'), at('2025-03-10T23:00Z')),
    ).toEqual([at('2025-03-08T14:00Z'), at('2025-03-09T13:00Z'), at('2025-03-10T13:00Z')]);
    expect(
      firesBetween('0 9 * * *', 'America/New_York', at('2025-11-01T00:00Z'), at('2025-11-03T23:00Z')),
    ).toEqual([at('2025-11-01T13:00Z'), at('2025-11-02T14:00Z'), at('2025-11-03T14:00Z')]);
  });

  it('fires once for a local time that does not exist (spring forward, New York)', () => {
    // 02:30 does not exist on 9 March 2025; it fires once that day, shifted to 03:30 EDT.
    expect(
      firesBetween('30 2 * * *', 'America/New_York', at('2025-03-08T00:00Z'), at('2025-03-10T23:00Z')),
    ).toEqual([at('2025-03-08T07:30Z'), at('2025-03-09T07:30Z'), at('2025-03-10T06:30Z')]);
  });

  it('fires once for a local time that exists twice (fall back, New York)', () => {
    expect(
      firesBetween('30 1 * * *', 'America/New_York', at('2025-11-01T00:00Z'), at('2025-11-03T23:00Z')),
    ).toEqual([at('2025-11-01T05:30Z'), at('2025-11-02T05:30Z'), at('2025-11-03T06:30Z')]);
  });

  it('keeps a fixed interval through the repeated hour (fall back, New York)', () => {
    expect(
      firesBetween('*/30 * * * *', 'America/New_York', at('2025-11-02T04:50Z'), at('2025-11-02T07:00Z')),
    ).toEqual([
      at('2025-11-02T05:00Z'),
      at('2025-11-02T05:30Z'),
      at('2025-11-02T06:00Z'),
      at('2025-11-02T06:30Z'),
      at('2025-11-02T07:00Z'),
    ]);
  });

  it('handles the half-hour offset of Asia/Kolkata (UTC+5:30)', () => {
    expect(nextFireAfter('0 9 * * *', 'Asia/Kolkata', at('2025-03-20T00:00Z'))).toEqual(
      at('2025-03-20T03:30Z'),
    );
    expect(nextFireAfter('0 9 * * *', 'Asia/Kolkata', at('2025-03-20T03:30Z'))).toEqual(
      at('2025-03-21T03:30Z'),
    );
    // Half past every local hour is on the hour in UTC.
    expect(nextFireAfter('30 * * * *', 'Asia/Kolkata', at('2025-03-20T10:15Z'))).toEqual(
      at('2025-03-20T11:00Z'),
    );
  });

  it('follows day-of-month OR day-of-week when both are restricted (standard cron)', () => {
    expect(firesBetween('0 0 13 * 5', 'UTC', at('2025-01-01T00:00Z'), at('2025-01-20T00:00Z'))).toEqual([
      at('2025-01-03T00:00Z'),
      at('2025-01-10T00:00Z'),
      at('2025-01-13T00:00Z'),
      at('2025-01-17T00:00Z'),
    ]);
  });

  it('finds 29 February', () => {
    expect(nextFireAfter('0 0 29 2 *', 'UTC', at('2025-01-01T00:00Z'))).toEqual(at('2028-02-29T00:00Z'));
  });

  it('throws RangeError for what parseCronSchedule refuses', () => {
    expect(() => nextFireAfter('0 * * * * *', 'UTC', at('2025-01-01T00:00Z'))).toThrow(
      new RangeError(
        'cron: expected 5 fields (minute hour day-of-month month day-of-week), got 6: a seconds field is not supported',
      ),
    );
    expect(() => nextFireAfter('0 9 * * *', 'Nowhere/Else', at('2025-01-01T00:00Z'))).toThrow(RangeError);
    expect(() => nextFireAfter('0 9 * * *', 'UTC', new Date(Number.NaN))).toThrow(RangeError);
  });

  it('throws for a refused schedule even after a valid one was used', () => {
    expect(nextFireAfter('0 9 * * *', 'UTC', at('2025-01-01T00:00Z'))).toEqual(at('2025-01-01T09:00Z'));
    expect(() => nextFireAfter('0 9 * * *', 'Nowhere/Else', at('2025-01-01T00:00Z'))).toThrow(RangeError);
  });
});

describe('planCronFire', () => {
  it('is undefined before the scheduled fire time', () => {
    const scheduled = at('2025-01-01T09:00:00.000Z');
    expect(planCronFire('0 9 * * *', 'UTC', scheduled, at('2025-01-01T08:59:59.999Z'))).toBeUndefined();
  });

  it('fires at the exact boundary (scheduledFireAt == now)', () => {
    const scheduled = at('2025-01-01T09:00:00.000Z');
    expect(planCronFire('0 9 * * *', 'UTC', scheduled, scheduled)).toEqual({
      fireAt: scheduled,
      nextFireAt: at('2025-01-02T09:00Z'),
      missed: 0,
    });
  });

  it('fires on time with nothing missed when polled shortly after', () => {
    expect(
      planCronFire('*/5 * * * *', 'UTC', at('2025-01-01T09:00Z'), at('2025-01-01T09:00:03.250Z')),
    ).toEqual({
      fireAt: at('2025-01-01T09:00Z'),
      nextFireAt: at('2025-01-01T09:05Z'),
      missed: 0,
    });
  });

  it('fires once, for the newest due time, after downtime', () => {
    // Down from 09:02 to 09:31: 09:05 ... 09:30 were due as well as 09:00.
    expect(planCronFire('*/5 * * * *', 'UTC', at('2025-01-01T09:00Z'), at('2025-01-01T09:31Z'))).toEqual({
      fireAt: at('2025-01-01T09:30Z'),
      nextFireAt: at('2025-01-01T09:35Z'),
      missed: 6,
    });
  });

  it('counts a fire time equal to now as due', () => {
    expect(planCronFire('*/5 * * * *', 'UTC', at('2025-01-01T09:00Z'), at('2025-01-01T09:10Z'))).toEqual({
      fireAt: at('2025-01-01T09:10Z'),
      nextFireAt: at('2025-01-01T09:15Z'),
      missed: 2,
    });
  });

  it('plans in the time zone across a DST change (Berlin, daily 09:00 local)', () => {
    // Down from before the fire of Saturday 29 March until Tuesday 1 April 2025, 08:00 UTC.
    expect(
      planCronFire('0 9 * * *', 'Europe/Berlin', at('2025-03-29T08:00Z'), at('2025-04-01T08:00Z')),
    ).toEqual({ fireAt: at('2025-04-01T07:00Z'), nextFireAt: at('2025-04-02T07:00Z'), missed: 3 });
  });

  it('plans across the New York fall-back night', () => {
    expect(
      planCronFire('*/30 * * * *', 'America/New_York', at('2025-11-02T05:00Z'), at('2025-11-02T06:45Z')),
    ).toEqual({ fireAt: at('2025-11-02T06:30Z'), nextFireAt: at('2025-11-02T07:00Z'), missed: 3 });
  });

  it('plans in Asia/Kolkata', () => {
    expect(
      planCronFire('0 9 * * *', 'Asia/Kolkata', at('2025-03-20T03:30Z'), at('2025-03-22T12:00Z')),
    ).toEqual({
      fireAt: at('2025-03-22T03:30Z'),
      nextFireAt: at('2025-03-23T03:30Z'),
      missed: 2,
    });
  });

  it('treats a stored fire time the expression no longer matches as due', () => {
    expect(planCronFire('0 9 * * *', 'UTC', at('2025-01-01T08:17Z'), at('2025-01-01T08:20Z'))).toEqual({
      fireAt: at('2025-01-01T08:17Z'),
      nextFireAt: at('2025-01-01T09:00Z'),
      missed: 0,
    });
    expect(planCronFire('0 9 * * *', 'UTC', at('2025-01-01T08:17Z'), at('2025-01-01T09:20Z'))).toEqual({
      fireAt: at('2025-01-01T09:00Z'),
      nextFireAt: at('2025-01-02T09:00Z'),
      missed: 1,
    });
  });

  it('counts exactly MAX_COUNTED_MISSED_FIRES without capping the newest fire', () => {
    const scheduled = at('2025-01-01T00:00Z');
    const now = new Date(scheduled.getTime() + MAX_COUNTED_MISSED_FIRES * MINUTE);
    expect(planCronFire('* * * * *', 'UTC', scheduled, now)).toEqual({
      fireAt: now,
      nextFireAt: new Date(now.getTime() + MINUTE),
      missed: MAX_COUNTED_MISSED_FIRES,
    });
  });

  it('caps the count after a long outage and still fires the newest due time (across a DST change)', () => {
    // Every minute in Berlin from Saturday noon to Monday noon: about 2,880 due fire times.
    expect(
      planCronFire('* * * * *', 'Europe/Berlin', at('2025-03-29T12:00Z'), at('2025-03-31T12:00:30.500Z')),
    ).toEqual({
      fireAt: at('2025-03-31T12:00Z'),
      nextFireAt: at('2025-03-31T12:01Z'),
      missed: MAX_COUNTED_MISSED_FIRES,
    });
    expect(
      planCronFire('0 9 * * *', 'America/New_York', at('2020-01-01T14:00Z'), at('2025-11-02T20:00Z')),
    ).toEqual({
      fireAt: at('2025-11-02T14:00Z'),
      nextFireAt: at('2025-11-03T14:00Z'),
      missed: MAX_COUNTED_MISSED_FIRES,
    });
  });

  it.each([
    ['*/7 * * * *', 'Europe/Berlin', '2025-03-30T00:03Z', '2025-03-30T02:41:10Z'],
    ['15,45 1-3 * * *', 'America/New_York', '2025-11-02T05:15Z', '2025-11-02T09:00Z'],
    ['15,45 1-3 * * *', 'America/New_York', '2025-03-09T06:15Z', '2025-03-09T09:00Z'],
    ['0 */6 * * *', 'Asia/Kolkata', '2025-06-01T00:30Z', '2025-06-04T00:29:59.999Z'],
    ['0 0 L * *', 'UTC', '2025-01-31T00:00Z', '2025-12-31T00:00Z'],
  ])('agrees with enumerating every fire: %s in %s from %s to %s', (expression, tz, from, to) => {
    const scheduled = at(from);
    const now = at(to);
    const fires = [scheduled, ...firesBetween(expression, tz, scheduled, now)];
    expect(fires.length).toBeGreaterThan(1);
    expect(planCronFire(expression, tz, scheduled, now)).toEqual({
      fireAt: fires[fires.length - 1],
      nextFireAt: nextFireAfter(expression, tz, now),
      missed: fires.length - 1,
    });
  });

  it('is deterministic', () => {
    const args = ['*/10 * * * *', 'Asia/Kolkata', at('2025-01-01T00:00Z'), at('2025-01-01T05:55Z')] as const;
    expect(planCronFire(...args)).toEqual(planCronFire(...args));
  });

  it('throws RangeError for a refused schedule or an invalid date', () => {
    expect(() => planCronFire('@hourly', 'UTC', at('2025-01-01T00:00Z'), at('2025-01-01T01:00Z'))).toThrow(
      RangeError,
    );
    expect(() =>
      planCronFire('0 * * * *', 'Moon/Base', at('2025-01-01T00:00Z'), at('2025-01-01T01:00Z')),
    ).toThrow(RangeError);
    expect(() => planCronFire('0 * * * *', 'UTC', at('2025-01-01T00:00Z'), new Date(Number.NaN))).toThrow(
      RangeError,
    );
    expect(() => planCronFire('0 * * * *', 'UTC', new Date(Number.NaN), at('2025-01-01T01:00Z'))).toThrow(
      RangeError,
    );
  });
});
