/** Refusals of the notification-sender's rate limiter (Redis token buckets). */
export enum RateLimitErrorCode {
  /** A grant or give-back request with a bad field (empty ids, counts or rates out of range). */
  RequestInvalid = 'RATE_LIMIT_REQUEST_INVALID',
  /** A tuning value of the limiter is out of its allowed range. */
  TuningInvalid = 'RATE_LIMIT_TUNING_INVALID',
  /** 503: waiting for tokens was cancelled (shutdown) before they came. */
  WaitAborted = 'RATE_LIMIT_WAIT_ABORTED',
}
