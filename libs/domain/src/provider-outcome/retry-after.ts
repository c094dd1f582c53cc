/** Longest wait we honour; a provider asking for more is still retried after a day at most. */
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;

const DELAY_SECONDS = /^\d+$/;
// IMF-fixdate, e.g. "Wed, 21 Oct 2015 07:28:00 GMT" (RFC 9110 section 5.6.7); Date.parse alone
// would also accept loose text such as "2".
const HTTP_DATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Milliseconds to wait from a `Retry-After` header (delay-seconds or an HTTP-date, RFC 9110
 * section 10.2.3), relative to `nowMs`; undefined when absent or unreadable. A date in the past
 * means "now" (0); values are capped at RETRY_AFTER_MAX_MS.
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined,
  nowMs: number,
): number | undefined {
  const raw = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (DELAY_SECONDS.test(raw)) return Math.min(Number(raw) * 1000, RETRY_AFTER_MAX_MS);
  if (!HTTP_DATE.test(raw)) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(at - nowMs, 0), RETRY_AFTER_MAX_MS);
}
