/** Refusals about provider credentials (campaign-scheduler API, webhook-ingest, provider-simulator). */
export enum CredentialErrorCode {
  /** 404 (400 when named by a campaign or send request): no credential with this id for the tenant. */
  NotFound = 'CREDENTIAL_NOT_FOUND',
  /** 400: a campaign or send request names a credential of another channel. */
  ChannelMismatch = 'CREDENTIAL_CHANNEL_MISMATCH',
}
