/** One second of a credential's rate limiter, summed over every sender replica. */
export interface CredentialRateSecondView {
  /** The second (ISO-8601, UTC). */
  readonly at: string;
  /** The AIMD rate (messages/s) the second ended at. */
  readonly rate: number;
  /** Tokens (messages) granted. */
  readonly granted: number;
  /**
   * Provider answers: accepted, congested (429 or its equivalent), 5xx, timeouts. Counted as AIMD counts
   * them, per provider request (a bulk request of many messages is one, answering what most of them said).
   */
  readonly accepted: number;
  readonly congested: number;
  readonly errors5xx: number;
  readonly timeouts: number;
  /** AIMD decreases (congestion events) applied. */
  readonly decreases: number;
}

/** A second in which the credential's rate was cut. */
export type CredentialCongestionEventView = Omit<CredentialRateSecondView, 'granted' | 'accepted'>;

/** GET /v1/credentials/{id}/rate: what a credential's rate limiter did, per second. */
export interface CredentialRateView {
  readonly credentialId: string;
  readonly rateCeilingPerSec: number;
  readonly rateFloorPerSec: number;
  /** The rate of the newest second recorded, and that second; null when none is. */
  readonly current: { readonly rate: number; readonly at: string } | null;
  /** The seconds asked for that have figures, oldest first (a second without any has no entry). */
  readonly series: CredentialRateSecondView[];
  /** Seconds of the last 24 hours with a decrease, newest first, at most 50. */
  readonly congestionEvents: CredentialCongestionEventView[];
}
