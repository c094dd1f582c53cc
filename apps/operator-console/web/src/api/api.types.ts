import type { RejectView } from '@ums/contracts';

export type {
  AudienceImportView,
  AuditEventPage,
  AuditEventView,
  CampaignDetailView,
  CampaignList,
  CampaignView,
  CredentialPage,
  CredentialView,
  DeadLetterPage,
  DeadLetterReplayResult,
  DeadLetterView,
  DeliveryPage,
  DeliveryView,
  ImportSummary,
  LiveCampaignItem,
  LiveCampaignsFrame,
  LiveRunSummary,
  RejectView,
  RunActionResult,
  RunCounters,
  RunList,
  RunMessagePage,
  RunMessageView,
  RunSample,
  RunView,
  SubscriberPage,
  SubscriberView,
} from '@ums/contracts';

export type {
  /** GET /v1/whoami: who the key is; tenantId null is the operator acting across tenants. */
  WhoamiView as Whoami,
  /** `event: history` of a run's live stream: the samples kept, oldest first. */
  RunSampleHistory as RunHistoryFrame,
  /** The run's credential's limiter figures for one second. */
  RunRateSecond as RateSecond,
  /** GET .../runs/{runId}/timeline: the last 15 minutes of the run's activity, per second. */
  RunTimelineView as RunTimeline,
  /** GET /v1/credentials/{id}/rate. */
  CredentialRateView as CredentialRate,
  CredentialRateSecondView as CredentialRateSecond,
  CredentialCongestionEventView as CongestionEvent,
} from '@ums/contracts';

/** GET .../audience/imports/{importId}/rejects. */
export interface RejectPage {
  readonly items: readonly RejectView[];
  readonly nextAfter: number | null;
}

/** POST /v1/subscribers/{id}/replay: how many deliveries were queued again. */
export interface ReplayCount {
  readonly replayed: number;
}
