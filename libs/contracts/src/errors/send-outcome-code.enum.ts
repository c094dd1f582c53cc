/**
 * The notification-sender's own per-message error codes (the messages row's error_code), beside
 * the codes providers answer with, which are kept as the provider gave them.
 */
export enum SendOutcomeCode {
  /** Not sent: an earlier request of the same send met congestion or a dead connection. */
  NotAttempted = 'NOT_ATTEMPTED',
  /** Not sent, or sent without an answer: the send was cancelled (shutdown). */
  Aborted = 'ABORTED',
  /** Not sent: the request waited past its claim's window. */
  ClaimWindowPassed = 'CLAIM_WINDOW_PASSED',
  /** Not sent: the request could not start soon enough after its rate-limit slot. */
  SlotMissed = 'SLOT_MISSED',
  /** The request got no HTTP answer and the transport error had no code of its own. */
  TransportError = 'TRANSPORT_ERROR',
  /** A bulk answer does not mention the message: it may have been accepted. */
  MissingResult = 'MISSING_RESULT',
  /** The credential's provider does not carry the message's channel. */
  ChannelUnsupported = 'CHANNEL_UNSUPPORTED',
  /** The message has no content, or its content (text, subject, template) is unusable. */
  ContentInvalid = 'CONTENT_INVALID',
  /** The recipient's variables lack what the template uses (also a refused single send request). */
  VariablesMissing = 'VARIABLES_MISSING',
  /** The credential could not be read now (MySQL): retried. */
  CredentialUnavailable = 'CREDENTIAL_UNAVAILABLE',
  /** The stored credential is unusable: missing, unknown provider or channel, bad config or secret. */
  CredentialInvalid = 'CREDENTIAL_INVALID',
  /** The credential's provider is not enabled on this deployment. */
  ProviderDisabled = 'PROVIDER_DISABLED',
  /** The credential's config.baseUrl is not an endpoint this deployment allows for its provider. */
  EndpointNotAllowed = 'ENDPOINT_NOT_ALLOWED',
  /** Not sent: the tenant's credit balance on the channel does not cover the message (single send). */
  CreditsExhausted = 'CREDITS_EXHAUSTED',
  /** Not sent: the tenant's daily or monthly message quota is used up (single send). */
  QuotaExhausted = 'QUOTA_EXHAUSTED',
}
