/**
 * The periods of credit_quota_usage rows: a UTC day `D2026-11-28` and a UTC month `M2026-11`. Whoever
 * counts messages and whoever reads the counts derive the keys from the same instant the same way.
 */
export interface QuotaPeriods {
  /** `D2026-11-28`. */
  readonly day: string;
  /** `M2026-11`. */
  readonly month: string;
}

/** The keys of the UTC day and month `at` falls in. */
export function quotaPeriodsAt(at: Date): QuotaPeriods {
  const iso = at.toISOString();
  return { day: `D${iso.slice(0, 10)}`, month: `M${iso.slice(0, 7)}` };
}

/** A period key without its kind letter: `2026-11-28`, `2026-11` (as the API shows it). */
export function periodLabel(key: string): string {
  return key.slice(1);
}

/**
 * The oldest day key still kept when rows older than `keepDays` days before `at` are pruned, and the
 * month key of that day: usage rows of earlier days (`D...` below the first) and earlier months (`M...`
 * below the second) may go. Keys sort as their periods do, so a string comparison selects them.
 */
export function quotaRetentionFloor(at: Date, keepDays: number): QuotaPeriods {
  return quotaPeriodsAt(new Date(at.getTime() - keepDays * 86_400_000));
}
