/** Refusals of the campaign-scheduler's live streams (server-sent events of campaigns and runs). */
export enum LiveErrorCode {
  /** 429: the process serves as many live streams as LIVE_MAX_CONNECTIONS allows; retry later or on another replica. */
  ProcessLimitReached = 'LIVE_PROCESS_LIMIT_REACHED',
  /** 429: the caller's credential holds as many live streams as LIVE_MAX_CONNECTIONS_PER_PRINCIPAL allows; close one. */
  PrincipalLimitReached = 'LIVE_PRINCIPAL_LIMIT_REACHED',
}
