/** Rows a status refresh changed, by the state they went to. */
export interface StatusRefreshSettledView {
  readonly sent: number;
  readonly delivered: number;
  readonly read: number;
  /** FAILED as the provider reported it. */
  readonly failed: number;
  /** FAILED NOT_RECEIVED: the provider never received them; resend-unknown sends them again. */
  readonly notReceived: number;
}

/** GET /v1/campaigns/{id}/runs/{runId}/status-refresh (and the answer to POST). */
export interface StatusRefreshView {
  readonly runId: string;
  /** The run's rows whose fate is not known. */
  readonly unsettled: {
    readonly unknown: number;
    /** SENT rows without a callback longer than STATUS_REFRESH_SENT_AFTER_MS after their claim. */
    readonly sentWithoutCallback: number;
  };
  /** The run's latest refresh request; null when none was made. */
  readonly lastRefresh: {
    readonly requestedAt: string;
    /** Null while the senders are still working on it. */
    readonly finishedAt: string | null;
    readonly settled: StatusRefreshSettledView;
    /** Rows asked about that stayed as they were (the provider could not tell, or had nothing new). */
    readonly unresolved: number;
  } | null;
}
