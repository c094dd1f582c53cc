import type { RunState } from '../enums/run-state.enum';
import type { CampaignView } from './campaign.view';
import type { RunCounters } from './run.view';

/** A campaign's latest run, as the live campaign list shows it. */
export interface LiveRunSummary {
  readonly id: string;
  readonly state: RunState;
  readonly counters: RunCounters;
}

/** A campaign of the live list: the campaign view with its latest run (null before its first run). */
export interface LiveCampaignItem extends CampaignView {
  readonly latestRun: LiveRunSummary | null;
}

/** `event: campaigns` of `GET /v1/live/campaigns`, once a second: the caller's newest campaigns. */
export interface LiveCampaignsFrame {
  /** The second the frame was taken (ISO-8601). */
  readonly at: string;
  /** Newest first, at most 50 (the first page of `GET /v1/campaigns`). */
  readonly campaigns: readonly LiveCampaignItem[];
}

/**
 * What a run's credential's rate limiter did in one second (all notification-sender replicas
 * together): the AIMD rate the second ended at and the provider's answers.
 */
export interface RunRateSecond {
  readonly rate: number;
  readonly accepted: number;
  /** The provider's 429s (or its equivalent). */
  readonly congested: number;
  readonly errors5xx: number;
  readonly timeouts: number;
  /** AIMD decreases (congestion events) in the second. */
  readonly decreases: number;
}

/** `event: sample` of a run's live stream, once a second. */
export interface RunSample {
  /** The second the sample was taken (ISO-8601). */
  readonly at: string;
  readonly state: RunState;
  /** Cumulative: per-second figures are the differences between samples. */
  readonly counters: RunCounters;
  /** The run's credential's last complete second, or null when its limiter recorded none. */
  readonly rate: RunRateSecond | null;
}

/** `event: history`, the first event of a run's live stream: the samples kept (oldest first, up to 15 min). */
export interface RunSampleHistory {
  readonly samples: readonly RunSample[];
}
