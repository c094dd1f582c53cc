import { ConfigValidationError } from '@ums/platform';
import type { ProvidersConfig } from '../providers/providers.config';
import type { SendingConfig } from './sending.config';

/** How long a claim may wait before its provider request starts, derived from the settings. */
export interface ClaimTiming {
  /** The longest one provider request can take: connect, then headers, then body (each its own timeout). */
  readonly requestWorstMs: number;
  /**
   * From the moment a claim is taken or refreshed, how long its requests may still start: each then
   * ends (or times out) and is recorded within SENDER_CLAIM_TIMEOUT_MS, before the expiry sweep could
   * turn its row UNKNOWN. Requests queued (per-credential concurrency) past it are not sent.
   */
  readonly startWindowMs: number;
}

type TimingSettings = Pick<SendingConfig, 'SENDER_CLAIM_TIMEOUT_MS' | 'SENDER_CLAIM_RECORD_MARGIN_MS'> &
  Pick<ProvidersConfig, 'PROVIDER_CONNECT_TIMEOUT_MS' | 'PROVIDER_HTTP_TIMEOUT_MS'>;

/**
 * Checks at start-up that a claim outlives the worst case of queueing plus one provider request:
 * SENDER_CLAIM_TIMEOUT_MS must cover a request queued behind one round of the credential's
 * concurrency that all time out (the start window, at least one request's worst case), then its own
 * request (PROVIDER_CONNECT_TIMEOUT_MS + 2 x PROVIDER_HTTP_TIMEOUT_MS: headers and body), then the
 * recording (SENDER_CLAIM_RECORD_MARGIN_MS). Throws CONFIG_INVALID naming the settings otherwise.
 */
export function claimTimingOf(settings: TimingSettings): ClaimTiming {
  const requestWorstMs = settings.PROVIDER_CONNECT_TIMEOUT_MS + 2 * settings.PROVIDER_HTTP_TIMEOUT_MS;
  const startWindowMs =
    settings.SENDER_CLAIM_TIMEOUT_MS - settings.SENDER_CLAIM_RECORD_MARGIN_MS - requestWorstMs;
  if (startWindowMs < requestWorstMs) {
    const needed = 2 * requestWorstMs + settings.SENDER_CLAIM_RECORD_MARGIN_MS;
    throw new ConfigValidationError([
      {
        field: 'SENDER_CLAIM_TIMEOUT_MS',
        reason:
          `must be at least ${needed} (2 x (PROVIDER_CONNECT_TIMEOUT_MS + 2 x PROVIDER_HTTP_TIMEOUT_MS)` +
          ` + SENDER_CLAIM_RECORD_MARGIN_MS: one request's worst case queued, one sent, then the record),` +
          ` got ${settings.SENDER_CLAIM_TIMEOUT_MS}`,
      },
    ]);
  }
  return { requestWorstMs, startWindowMs };
}
