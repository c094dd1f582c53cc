import { checkOneOffTime, ONE_OFF_GRACE_MS, parseOneOffTime } from './one-off-time';

describe('parseOneOffTime', () => {
  it.each([
    ['2026-12-01T09:00:00+01:00', '2026-12-01T08:00:00.000Z'],
    ['2026-12-01T09:00:00Z', '2026-12-01T09:00:00.000Z'],
    ['2026-12-01t09:00:00z', '2026-12-01T09:00:00.000Z'],
    ['2026-12-01T09:00:00.123456-05:30', '2026-12-01T14:30:00.123Z'],
    ['2026-12-01T09:00:00+0100', '2026-12-01T08:00:00.000Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
    [' 2026-12-01T09:00:00Z ', '2026-12-01T09:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    const parsed = parseOneOffTime(text);
    expect(parsed.ok && parsed.at.toISOString()).toBe(iso);
  });

  it.each([
    ['2026-12-01T09:00:00', 'has no UTC offset'],
    ['2026-12-01T09:00', 'has no UTC offset'],
    ['2026-12-01 09:00:00', 'has no UTC offset'],
    ['2026-12-01', 'has no UTC offset'],
    ['2026-02-30T09:00:00Z', 'is not a date: 2026-02-30'],
    ['2027-02-29T09:00:00Z', 'is not a date: 2027-02-29'],
    ['2026-13-01T09:00:00Z', 'is not a date'],
    ['2026-12-01T24:00:00Z', 'has a time of day out of range'],
    ['2026-12-01T09:60:00Z', 'has a time of day out of range'],
    ['2026-12-01T09:00:00+24:00', 'has a UTC offset out of range'],
    ['tomorrow', 'must be an ISO 8601 time with a UTC offset'],
    ['1764579600000', 'must be an ISO 8601 time with a UTC offset'],
    ['+275760-09-13T00:00:00Z', 'must be an ISO 8601 time with a UTC offset'],
    ['', 'must be an ISO 8601 time with a UTC offset'],
  ])('refuses %j: %s', (text, reason) => {
    const parsed = parseOneOffTime(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(reason);
  });
});

describe('checkOneOffTime', () => {
  const now = new Date('2026-11-26T10:00:00Z');

  it('accepts a future time and one within the grace period, refuses one before it', () => {
    expect(checkOneOffTime('2026-11-26T11:00:00+01:00', now).ok).toBe(true);
    const atGraceEdge = new Date(now.getTime() - ONE_OFF_GRACE_MS).toISOString();
    expect(checkOneOffTime(atGraceEdge, now).ok).toBe(true);
    const justBefore = new Date(now.getTime() - ONE_OFF_GRACE_MS - 1).toISOString();
    const refused = checkOneOffTime(justBefore, now);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toContain('is in the past');
  });

  it('refuses a time long past (2001), naming both times', () => {
    const refused = checkOneOffTime('2001-01-01T00:00:00Z', now);
    expect(refused).toEqual({
      ok: false,
      reason:
        '2001-01-01T00:00:00.000Z is in the past (now 2026-11-26T10:00:00.000Z); a one-off time may be at most 60 s ago',
    });
  });

  it('reports a shape problem before the time', () => {
    const refused = checkOneOffTime('2001-01-01T00:00:00', now);
    expect(!refused.ok && refused.reason).toContain('has no UTC offset');
  });
});
