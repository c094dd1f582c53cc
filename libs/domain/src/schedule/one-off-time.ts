/**
 * How far in the past a one-off (`at`) time may be when a campaign is created: a time a client
 * computed as "now" reaches the API a moment later, and clocks differ a little. Anything older
 * would fire at once, which is not what a schedule asks for.
 */
export const ONE_OFF_GRACE_MS = 60_000;

export type OneOffTimeCheck =
  { readonly ok: true; readonly at: Date } | { readonly ok: false; readonly reason: string };

// RFC 3339: date, T, time with optional fraction, and an explicit offset (Z or +hh:mm, also +hhmm).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const SHAPE = 'an ISO 8601 time with a UTC offset, e.g. 2026-12-01T09:00:00+01:00 or 2026-12-01T08:00:00Z';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
}

/**
 * Reads a one-off time: a full date and time with an explicit UTC offset (a time without one would
 * have to be guessed in some zone). Refuses impossible dates (30 February) and out-of-range fields.
 */
export function parseOneOffTime(text: string): OneOffTimeCheck {
  const match = DATE_TIME.exec(text.trim());
  if (match === null) {
    const reason = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(text.trim())
      ? `has no UTC offset: write ${SHAPE}`
      : `must be ${SHAPE}`;
    return { ok: false, reason };
  }
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] ?? '';
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    return { ok: false, reason: `is not a date: ${match.slice(1, 4).join('-')}` };
  }
  if (hour > 23 || minute > 59 || second > 59) return { ok: false, reason: 'has a time of day out of range' };
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  if (offsetHours > 23 || offsetMinutes > 59) return { ok: false, reason: 'has a UTC offset out of range' };
  const sign = match[9] === '-' ? -1 : 1;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  return { ok: true, at: new Date(local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000) };
}

/** parseOneOffTime, and the time must not be more than graceMs before now. */
export function checkOneOffTime(
  text: string,
  now: Date,
  graceMs: number = ONE_OFF_GRACE_MS,
): OneOffTimeCheck {
  const parsed = parseOneOffTime(text);
  if (!parsed.ok) return parsed;
  if (parsed.at.getTime() < now.getTime() - graceMs) {
    return {
      ok: false,
      reason: `${parsed.at.toISOString()} is in the past (now ${now.toISOString()}); a one-off time may be at most ${graceMs / 1000} s ago`,
    };
  }
  return parsed;
}
