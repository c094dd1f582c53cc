import { FailureReason } from '@ums/contracts';
import { failureFrom, type FailureRule, type ProviderFailure } from './provider-failure';

/**
 * What an HTTP status alone says, for answers whose body names no code we know. 429 and 503 are
 * the provider asking us to slow down (congestion); 504 and 408 are timeouts, and after a 504 a
 * gateway may have passed the request on (ambiguous). Other 5xx are retried without slowing down:
 * the rate limiter sees them as provider errors and decides on bursts itself. Any other status
 * (4xx, and 1xx/3xx since we follow no redirects) will not change on retry.
 */
export function httpStatusRule(status: number): FailureRule {
  if (status === 429) return { reason: FailureReason.Throttled, retryable: true, congestion: true };
  if (status === 503) return { reason: FailureReason.ProviderError, retryable: true, congestion: true };
  if (status === 408 || status === 504) {
    return { reason: FailureReason.Timeout, retryable: true, congestion: true };
  }
  if (status >= 500 && status <= 599) return { reason: FailureReason.ProviderError, retryable: true };
  if (status >= 400 && status <= 499) return { reason: FailureReason.Rejected, retryable: false };
  return { reason: FailureReason.Other, retryable: false };
}

/** An unsuccessful HTTP answer, with what its body said (if it could be read). */
export interface ErrorAnswer {
  readonly status: number;
  /** The provider's own error code, when the body had one. */
  readonly code?: string;
  readonly message?: string;
  readonly retryAfterMs?: number;
}

/**
 * Applies the provider's rule for the answer's code, or the HTTP status rule when the code is
 * absent or unknown. The failure's code is the provider's code when there is one (so operators see
 * what the provider said), else `HTTP_<status>`.
 */
export function classifyErrorAnswer(rule: FailureRule | undefined, answer: ErrorAnswer): ProviderFailure {
  return failureFrom(rule ?? httpStatusRule(answer.status), {
    code: answer.code ?? `HTTP_${answer.status}`,
    detail: answer.message,
    retryAfterMs: answer.retryAfterMs,
    ambiguous: rule === undefined && answer.status === 504,
  });
}

/** The failure for an unsuccessful HTTP answer that carries no provider code. */
export function httpStatusFailure(status: number, message?: string, retryAfterMs?: number): ProviderFailure {
  return classifyErrorAnswer(undefined, { status, message, retryAfterMs });
}
