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
  /** A status refresh found the provider never received the message (an UNKNOWN claim): safe to resend, by an operator only. */
  NotReceived = 'not-received',
  /** Not sent: the tenant's credits or message quota did not cover it (a single send). */
  CreditsExhausted = 'credits-exhausted',
  Other = 'other',
}
