import type { ApiClient } from './api.client';
import type {
  AuditEventPage,
  CampaignDetailView,
  CampaignList,
  CampaignView,
  CredentialPage,
  CredentialRate,
  DeadLetterPage,
  DeadLetterReplayResult,
  DeadLetterView,
  DeliveryPage,
  ImportSummary,
  RejectPage,
  ReplayCount,
  RunActionResult,
  RunList,
  RunMessagePage,
  RunTimeline,
  RunView,
  SubscriberPage,
  SubscriberView,
} from './api.types';

const seg = encodeURIComponent;

/** POST /v1/campaigns: what the console's form sends. */
export interface NewCampaignBody {
  readonly name: string;
  readonly channel: string;
  readonly credentialId: string;
  readonly template: { readonly text: string; readonly subject?: string };
  readonly defaultCountry?: string;
  readonly schedule: { readonly kind: 'now' };
}

export type RunActionName = 'pause' | 'resume' | 'stop' | 'retry-failed' | 'resend-unknown';
export type CampaignActionName = 'start' | 'pause' | 'resume' | 'stop' | 'archive';

export interface MessageFilter {
  readonly states: readonly string[];
  readonly recipient: string;
}

export interface DeadLetterFilter {
  readonly sourceTopic: string;
  readonly errorCode: string;
  readonly consumerGroup: string;
  /** 'yes', 'no' or '' (either). */
  readonly replayed: '' | 'yes' | 'no';
}

export interface AuditFilter {
  readonly action: string;
  readonly principalId: string;
  /** RFC 3339 with a zone, or ''. */
  readonly since: string;
}

function replayedQuery(replayed: DeadLetterFilter['replayed']): string | undefined {
  if (replayed === '') return undefined;
  return replayed === 'yes' ? 'true' : 'false';
}

function replayFilterBody(filter: DeadLetterFilter): Record<string, string> {
  const body: Record<string, string> = {};
  if (filter.sourceTopic.trim() !== '') body['sourceTopic'] = filter.sourceTopic.trim();
  if (filter.errorCode.trim() !== '') body['errorCode'] = filter.errorCode.trim();
  if (filter.consumerGroup.trim() !== '') body['consumerGroup'] = filter.consumerGroup.trim();
  return body;
}

/** The campaign-scheduler's routes the console uses. */
export function schedulerApi(client: ApiClient) {
  const run = (campaignId: string, runId: string): string =>
    `/v1/campaigns/${seg(campaignId)}/runs/${seg(runId)}`;
  return {
    listCampaigns: (limit = 100) =>
      client.json<CampaignList>('scheduler', '/v1/campaigns', { query: { limit } }),
    campaign: (id: string) => client.json<CampaignDetailView>('scheduler', `/v1/campaigns/${seg(id)}`),
    createCampaign: (body: NewCampaignBody) =>
      client.json<CampaignView>('scheduler', '/v1/campaigns', { method: 'POST', body, create: true }),
    campaignAction: (id: string, action: CampaignActionName) =>
      client.json<CampaignDetailView>('scheduler', `/v1/campaigns/${seg(id)}/${action}`, { method: 'POST' }),
    runs: (id: string, before?: string) =>
      client.json<RunList>('scheduler', `/v1/campaigns/${seg(id)}/runs`, { query: { limit: 50, before } }),
    run: (campaignId: string, runId: string) => client.json<RunView>('scheduler', run(campaignId, runId)),
    runTimeline: (campaignId: string, runId: string, signal?: AbortSignal) =>
      client.json<RunTimeline>('scheduler', `${run(campaignId, runId)}/timeline`, { signal }),
    runAction: (campaignId: string, runId: string, action: RunActionName) =>
      client.json<RunActionResult>('scheduler', `${run(campaignId, runId)}/${action}`, { method: 'POST' }),
    messages: (campaignId: string, runId: string, filter: MessageFilter, after?: string) =>
      client.json<RunMessagePage>('scheduler', `${run(campaignId, runId)}/messages`, {
        query: { state: filter.states, recipient: filter.recipient, after, limit: 50 },
      }),
    exportMessages: (campaignId: string, runId: string, filter: MessageFilter) =>
      client.blob('scheduler', `${run(campaignId, runId)}/messages/export.csv`, {
        query: { state: filter.states, recipient: filter.recipient },
        accept: 'text/csv',
      }),
    importFromUrl: (campaignId: string, url: string) =>
      client.json<ImportSummary>('scheduler', `/v1/campaigns/${seg(campaignId)}/audience/url`, {
        method: 'POST',
        body: { url },
      }),
    audienceImport: (campaignId: string, importId: string) =>
      client.json<ImportSummary>(
        'scheduler',
        `/v1/campaigns/${seg(campaignId)}/audience/imports/${seg(importId)}`,
      ),
    rejects: (campaignId: string, importId: string, after?: number) =>
      client.json<RejectPage>(
        'scheduler',
        `/v1/campaigns/${seg(campaignId)}/audience/imports/${seg(importId)}/rejects`,
        { query: { after, limit: 200 } },
      ),
    credentials: (after?: string) =>
      client.json<CredentialPage>('scheduler', '/v1/credentials', { query: { limit: 100, after } }),
    credentialRate: (id: string, seconds = 300) =>
      client.json<CredentialRate>('scheduler', `/v1/credentials/${seg(id)}/rate`, { query: { seconds } }),
    deadLetters: (filter: DeadLetterFilter, before?: string) =>
      client.json<DeadLetterPage>('scheduler', '/v1/dead-letters', {
        query: {
          sourceTopic: filter.sourceTopic.trim(),
          errorCode: filter.errorCode.trim(),
          consumerGroup: filter.consumerGroup.trim(),
          replayed: replayedQuery(filter.replayed),
          before,
          limit: 50,
        },
      }),
    deadLetter: (id: string) => client.json<DeadLetterView>('scheduler', `/v1/dead-letters/${seg(id)}`),
    /** The entries named, or (none named) those matching the filters that were not replayed yet. */
    replayDeadLetters: (ids: readonly string[], filter: DeadLetterFilter) =>
      client.json<DeadLetterReplayResult>('scheduler', '/v1/dead-letters/replay', {
        method: 'POST',
        body: ids.length > 0 ? { ids } : replayFilterBody(filter),
      }),
    auditEvents: (filter: AuditFilter, before?: string) =>
      client.json<AuditEventPage>('scheduler', '/v1/audit-events', {
        query: {
          action: filter.action.trim(),
          principalId: filter.principalId.trim(),
          since: filter.since,
          before,
          limit: 100,
        },
      }),
  };
}

/** The webhook-dispatcher's routes the console uses. */
export function dispatcherApi(client: ApiClient) {
  const subscriber = (id: string): string => `/v1/subscribers/${seg(id)}`;
  return {
    subscribers: (after?: string) =>
      client.json<SubscriberPage>('dispatcher', '/v1/subscribers', { query: { limit: 100, after } }),
    subscriber: (id: string) => client.json<SubscriberView>('dispatcher', subscriber(id)),
    deliveries: (id: string, state: string, before?: string) =>
      client.json<DeliveryPage>('dispatcher', `${subscriber(id)}/deliveries`, {
        query: { state, before, limit: 50 },
      }),
    resurrect: (id: string) =>
      client.json<SubscriberView>('dispatcher', `${subscriber(id)}/resurrect`, { method: 'POST' }),
    replaySince: (id: string, since: string) =>
      client.json<ReplayCount>('dispatcher', `${subscriber(id)}/replay`, { method: 'POST', body: { since } }),
  };
}

export type SchedulerApi = ReturnType<typeof schedulerApi>;
export type DispatcherApi = ReturnType<typeof dispatcherApi>;
