/** Our provider-independent reasons for a failed or retried send. */
export enum FailureReason {
  InvalidRecipient = 'invalid-recipient',
  Blocked = 'blocked',
  OptedOut = 'opted-out',
  Throttled = 'throttled',
  Expired = 'expired',
  ProviderError = 'provider-error',
  NetworkError = 'network-error',
  Timeout = 'timeout',
  Rejected = 'rejected',
  RetriesExhausted = 'retries-exhausted',
  Other = 'other',
}
