import { CronExpressionParser, type CronExpression } from 'cron-parser';

export type CronScheduleCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly field: 'cron' | 'timeZone'; readonly reason: string };

/** What the scheduler does for a due cron campaign. */
export interface CronFirePlan {
  /** The one fire time to run now: the newest due one. */
  readonly fireAt: Date;
  /** The first fire time strictly after now: the campaign's new next_fire_at. */
  readonly nextFireAt: Date;
  /** Due fire times older than fireAt that are skipped (capped at MAX_COUNTED_MISSED_FIRES). */
  readonly missed: number;
}

/** planCronFire stops counting skipped fires here (a long outage of a per-minute cron would count forever). */
export const MAX_COUNTED_MISSED_FIRES = 1000;

const FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
const FIVE_FIELDS = `5 fields (${FIELD_NAMES.join(' ')})`;
// IANA names (Europe/Berlin, Etc/GMT+5, UTC, EST5EDT); refuses offsets such as "+02:00" that newer Intl accepts.
const TIME_ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;
// Validation looks for a fire from a fixed instant so that the answer does not depend on the clock.
const VALIDATION_FROM = new Date('2000-01-01T00:00:00Z');

/** True for an IANA time zone name the runtime knows ('UTC' included). */
export function isValidTimeZone(tz: string): boolean {
  if (!TIME_ZONE_SHAPE.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Parses and looks for one fire, so impossible dates (30 February) are refused too.
function tryExpression(expression: string): string | undefined {
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: VALIDATION_FROM }).next();
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

function checkCron(expression: string): string | undefined {
  const trimmed = expression.trim();
  if (trimmed === '') return `empty: expected ${FIVE_FIELDS}`;
  if (trimmed.startsWith('@'))
    return `macros such as ${trimmed.split(/\s/)[0]} are not supported: write ${FIVE_FIELDS}`;
  const fields = trimmed.split(/\s+/);
  if (fields.length === 6) {
    return `expected ${FIVE_FIELDS}, got 6: a seconds field is not supported`;
  }
  if (fields.length !== 5) return `expected ${FIVE_FIELDS}, got ${fields.length}`;
  // "H" (hashed) values are drawn at random unless seeded: refused to keep fire times deterministic.
  const hashed = fields.findIndex((field) => /(?<![A-Za-z])H(?![A-Za-z])/.test(field));
  if (hashed !== -1)
    return `${FIELD_NAMES[hashed]} field "${fields[hashed]}": H (hashed) values are not supported`;
  const problem = tryExpression(trimmed);
  if (problem === undefined) return undefined;
  // Name the field at fault when it is wrong on its own; otherwise the fields conflict (30 February).
  for (const [i, field] of fields.entries()) {
    const alone = FIELD_NAMES.map((_, j) => (j === i ? field : '*')).join(' ');
    const own = tryExpression(alone);
    if (own !== undefined) return `${FIELD_NAMES[i]} field "${field}": ${own}`;
  }
  return `no date matches the expression: ${problem}`;
}

/** Checks a 5-field cron expression and its IANA time zone, saying which is wrong and why. */
export function parseCronSchedule(expression: string, timeZone: string): CronScheduleCheck {
  const cronProblem = checkCron(expression);
  if (cronProblem !== undefined) return { ok: false, field: 'cron', reason: cronProblem };
  if (!isValidTimeZone(timeZone)) {
    return {
      ok: false,
      field: 'timeZone',
      reason: `unknown time zone ${JSON.stringify(timeZone)} (use an IANA name)`,
    };
  }
  return { ok: true };
}

// Pairs already checked; the scheduler asks about the same few campaigns on every tick.
const MAX_CHECKED = 1024;
const checked = new Set<string>();

function iterate(expression: string, timeZone: string, from: Date): CronExpression {
  const key = `${timeZone}\n${expression}`;
  if (!checked.has(key)) {
    const check = parseCronSchedule(expression, timeZone);
    if (!check.ok) throw new RangeError(`${check.field}: ${check.reason}`);
    if (checked.size >= MAX_CHECKED) checked.clear();
    checked.add(key);
  }
  if (Number.isNaN(from.getTime())) throw new RangeError('invalid date');
  return CronExpressionParser.parse(expression.trim(), { tz: timeZone, currentDate: from });
}

/**
 * The first fire strictly after `after`, in the schedule's time zone (DST-correct: a local time that
 * does not exist that day fires once, shifted forward; one that exists twice fires once).
 * Throws RangeError for what parseCronSchedule refuses.
 */
export function nextFireAfter(expression: string, timeZone: string, after: Date): Date {
  return iterate(expression, timeZone, after).next().toDate();
}

// Latest fire at or before `at`: prev() is strictly before its start, and works in whole seconds.
function latestAtOrBefore(expression: string, timeZone: string, at: Date): Date {
  return iterate(expression, timeZone, new Date(at.getTime() + 1))
    .prev()
    .toDate();
}

/**
 * Plans a due fire. Misfire policy: after downtime, fire once, for the newest due time; older due
 * times are counted as missed. `scheduledFireAt` (the stored next fire time) is itself due even if
 * the expression no longer matches it, so a due campaign always fires and moves on.
 * Undefined when nothing is due yet (scheduledFireAt > now). Deterministic given its inputs.
 */
export function planCronFire(
  expression: string,
  timeZone: string,
  scheduledFireAt: Date,
  now: Date,
): CronFirePlan | undefined {
  if (Number.isNaN(now.getTime())) throw new RangeError('invalid date');
  if (scheduledFireAt.getTime() > now.getTime()) return undefined;
  const fires = iterate(expression, timeZone, scheduledFireAt);
  let fireAt = scheduledFireAt;
  let missed = 0;
  for (;;) {
    const candidate = fires.next().toDate();
    if (candidate.getTime() > now.getTime()) return { fireAt, nextFireAt: candidate, missed };
    if (missed === MAX_COUNTED_MISSED_FIRES) break;
    fireAt = candidate;
    missed += 1;
  }
  // Too many to count: jump to the newest due fire.
  return {
    fireAt: latestAtOrBefore(expression, timeZone, now),
    nextFireAt: nextFireAfter(expression, timeZone, now),
    missed,
  };
}
