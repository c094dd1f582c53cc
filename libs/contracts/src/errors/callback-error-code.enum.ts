/** Refusals of provider callbacks (webhook-ingest): what a provider's status or inbound request got. */
export enum CallbackErrorCode {
  /** 400: the callback body is not what the provider sends (fields missing or of the wrong type). */
  Malformed = 'CALLBACK_MALFORMED',
  /** 400: the callback's signature does not verify with the credential's secret (or is missing). */
  SignatureInvalid = 'SIGNATURE_INVALID',
  /** 401: a Mitto delivery report whose `ums_token` (the secret of the registered URL) is missing or wrong. */
  TokenInvalid = 'CALLBACK_TOKEN_INVALID',
  /** 400: the callback names an account other than the credential's (Twilio AccountSid). */
  AccountMismatch = 'ACCOUNT_MISMATCH',
  /** 400: a WhatsApp verification request whose hub.mode is not `subscribe`. */
  VerifyModeInvalid = 'VERIFY_MODE_INVALID',
  /** 400: a WhatsApp verification request whose hub.challenge is missing or too long. */
  VerifyChallengeInvalid = 'VERIFY_CHALLENGE_INVALID',
  /** 400: a WhatsApp verification request whose hub.verify_token is not the credential's. */
  VerifyTokenInvalid = 'VERIFY_TOKEN_INVALID',
  /** 400: an SNS message's SigningCertURL or SubscribeURL is not an AWS SNS https URL. */
  SnsUrlRefused = 'SNS_URL_REFUSED',
  /** 503: the SNS signing certificate or subscription confirmation could not be fetched now. */
  SnsUnavailable = 'SNS_UNAVAILABLE',
  /** 503: the credential the callback names could not be read now (MySQL). */
  CredentialsUnavailable = 'CREDENTIALS_UNAVAILABLE',
  /** 503: the callback could not be stored on Kafka now; the provider retries it. */
  KafkaUnavailable = 'KAFKA_UNAVAILABLE',
}
