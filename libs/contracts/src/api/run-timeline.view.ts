import type { RunRateSecond } from './live.view';

/**
 * One second of a run's timeline: how many of the run's messages reached each stage in it, by their
 * rows' times (`sent_at`, `delivered_at`, `read_at`, `failed_at`). `unknown` counts the messages that
 * are in UNKNOWN when the timeline is read, by the second their row last changed (when they became
 * UNKNOWN); a message that left UNKNOWN since (resent, or settled by a late provider answer) is not
 * counted.
 */
export interface RunTimelineSecond {
  /** The second (ISO-8601, UTC). */
  readonly at: string;
  readonly sent: number;
  readonly delivered: number;
  readonly read: number;
  readonly failed: number;
  readonly unknown: number;
}

/** One second of the run's credential's rate limiter (`credential_rate_seconds`, all sender replicas). */
export interface RunTimelineRateSecond extends RunRateSecond {
  /** The second (ISO-8601, UTC). */
  readonly at: string;
}

/**
 * GET /v1/campaigns/{campaignId}/runs/{runId}/timeline: the last 15 minutes of a run's activity, per
 * second. The window ends at the run's finished_at (while it runs: the database's clock) and starts at
 * its started_at or 15 minutes before its end, whichever is later.
 */
export interface RunTimelineView {
  /** The window's first second (ISO-8601, UTC), included. */
  readonly from: string;
  /** The second after the window's last one (ISO-8601, UTC), excluded. */
  readonly to: string;
  /** Every second of [from, to), oldest first (zeros included); empty for a run not started. */
  readonly seconds: readonly RunTimelineSecond[];
  /** The seconds of [from, to) the credential's limiter recorded, oldest first; a second without any has no entry. */
  readonly rate: readonly RunTimelineRateSecond[];
}
