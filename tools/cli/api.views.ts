/** The shapes the CLI reads from the APIs (the fields it uses; see the services' READMEs). */

export interface RunCounters {
  readonly total: number;
  readonly pending: number;
  readonly sending: number;
  readonly sent: number;
  readonly delivered: number;
  readonly read: number;
  readonly failed: number;
  readonly unknown: number;
  readonly skipped: number;
}

export interface RunView {
  readonly id: string;
  readonly campaignId: string;
  readonly fireAt: string;
  readonly state: string;
  readonly attempts: number;
  readonly failureReason: string | null;
  readonly expandedAt: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly counters: RunCounters;
}

export interface CampaignView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly channel: string;
  readonly credentialId: string;
  readonly state: string;
  readonly schedule: {
    readonly kind: string;
    readonly at: string | null;
    readonly cron: string | null;
    readonly timeZone: string;
  };
  readonly nextFireAt: string | null;
  readonly createdAt: string;
}

export interface CampaignDetailView extends CampaignView {
  readonly audienceSize: number;
  readonly runs: readonly RunView[];
}

export interface ImportSummary {
  readonly id: string;
  readonly state: string;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly rowsDuplicate: number;
  readonly error: string | null;
  readonly firstRejects?: readonly { readonly line: number; readonly reason: string }[];
}

export interface RunActionResult {
  readonly run: RunView;
  readonly requeued?: number;
}

export interface MessageView {
  readonly id: string;
  readonly recipient: string;
  readonly state: string;
  readonly attempts: number;
  readonly reason: string | null;
  readonly errorCode: string | null;
  readonly updatedAt: string;
}

export interface SubscriberView {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly campaignId: string | null;
  /** 1: one event per request; more: `webhook.batch` requests of up to this many events. */
  readonly maxEventsPerRequest: number;
  readonly state: string;
  readonly failuresInWindow?: number;
  readonly lastError: string | null;
  readonly lastSuccessAt: string | null;
  readonly deadSince: string | null;
}

export interface DeliveryView {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly state: string;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly deliveredAt: string | null;
  readonly createdAt: string;
}

export interface CredentialView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly provider: string;
  readonly channel: string;
  readonly hasSecret: boolean;
  readonly rateCeilingPerSec: number;
  readonly rateFloorPerSec: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextAfter?: string | number | null;
  readonly nextBefore?: string | null;
}

/** Runs in these states do not change without an operator's action. */
const FINISHED_RUN_STATES = new Set(['COMPLETED', 'STOPPED', 'FAILED']);

export function isRunFinished(state: string): boolean {
  return FINISHED_RUN_STATES.has(state);
}

/**
 * How far a run is: messages past PENDING and SENDING out of all of them. Until the run is
 * expanded its total is still growing, so the audience size is the better denominator then.
 */
export function runProgress(run: RunView, audienceSize: number): { done: number; total: number } {
  const c = run.counters;
  const done = Math.max(0, c.total - c.pending - c.sending);
  const total = run.expandedAt === null ? Math.max(c.total, audienceSize) : c.total;
  return { done, total };
}

/** GET /v1/dead-letters/:id (campaign API). */
export interface DeadLetterView {
  readonly id: string;
  readonly consumerGroup: string;
  readonly sourceTopic: string;
  readonly sourcePartition: number;
  readonly sourceOffset: string;
  readonly replayTo: string | null;
  readonly key: string | null;
  readonly value: string | null;
  readonly valueEncoding: 'utf8' | 'base64';
  readonly headers: Record<string, string>;
  readonly errorCode: string;
  readonly reason: string;
  readonly attempts: number;
  readonly failedAt: string | null;
  readonly replays: number;
  readonly replayedAt: string | null;
  readonly createdAt: string;
}

/** POST /v1/dead-letters/replay (campaign API). */
export interface DeadLetterReplayView {
  readonly replayed: readonly string[];
  readonly refused: readonly { readonly id: string; readonly reason: string }[];
}

/** GET /v1/api-keys[/:id] (campaign API): never the token. */
export interface ApiKeyView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly scopes: readonly string[];
  /** The token's start (`umsk_<id>_`), to match a key found in a log or a scanner's report. */
  readonly prefix: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
}

/** POST /v1/api-keys: the view and, this once, the token. */
export interface CreatedApiKeyView extends ApiKeyView {
  readonly key: string;
}

/** GET /v1/audit-events (campaign API), newest first. */
export interface AuditEventView {
  readonly id: string;
  readonly occurredAt: string;
  readonly principalKind: string;
  readonly principalId: string;
  readonly tenantId: string | null;
  readonly service: string;
  readonly action: string;
  readonly target: string | null;
  readonly status: number;
  readonly result: string;
  readonly requestId: string | null;
}

/** The pages of the keys and the audit trail: `next` is the last id of a full page. */
export interface NextPage<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}
