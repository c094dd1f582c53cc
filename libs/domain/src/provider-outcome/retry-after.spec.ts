import { parseRetryAfter, RETRY_AFTER_MAX_MS } from './retry-after';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it.each([
    ['0', 0],
    ['1', 1000],
    [' 30 ', 30_000],
    ['120', 120_000],
    ['Wed, 01 Jan 2025 12:00:05 GMT', 5000],
    ['Wed, 01 Jan 2025 12:01:00 GMT', 60_000],
    // A date in the past means now.
    ['Tue, 31 Dec 2024 23:00:00 GMT', 0],
    // Capped at one day.
    ['999999999', RETRY_AFTER_MAX_MS],
    ['Fri, 01 Jan 2100 00:00:00 GMT', RETRY_AFTER_MAX_MS],
  ])('reads %j as %d ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([
    [''],
    ['  '],
    ['-1'],
    ['1.5'],
    ['soon'],
    ['2'.concat('s')],
    ['2025-01-01T12:00:05Z'],
    ['Xyz, 99 Foo 2025 12:00:00 GMT'],
  ])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it('reads the first of repeated headers and ignores a missing one', () => {
    expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
    expect(parseRetryAfter([], now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
