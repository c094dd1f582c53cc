/** What an answer (or its absence) from a subscriber means for the delivery and the subscriber. */
export type DeliveryOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  /** 410 Gone: the subscriber asked us to stop; it is disabled, the delivery is not retried. */
  | { readonly kind: 'gone'; readonly status: number }
  | {
      readonly kind: 'failed';
      readonly status?: number;
      readonly error: string;
      /** From Retry-After on 429/503: the earliest the subscriber wants to hear from us again. */
      readonly retryAfterMs?: number;
    };

/** Only 2xx is success; redirects are failures (never followed, see the SSRF guard). */
export function classifyDeliveryResponse(
  status: number,
  retryAfterHeader: string | undefined,
  now: number,
): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 410) return { kind: 'gone', status };
  const retryAfterMs =
    status === 429 || status === 503 ? parseRetryAfterMs(retryAfterHeader, now) : undefined;
  return {
    kind: 'failed',
    status,
    error: `HTTP ${status}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or malformed. Capped at one day. */
export function parseRetryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, 86_400_000);
  // An HTTP date always names a weekday or month; bare numbers like "-5" are not dates.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), 86_400_000);
}
