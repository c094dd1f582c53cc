import type { SchedulerTransport } from './scheduler-transport';

/** The media type of the live streams. */
const EVENT_STREAM = 'text/event-stream';

/** Who the caller is, as the API sees its credential. */
export class WhoamiClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `GET /v1/whoami`: kind, id, tenant (null for the operator across tenants) and scopes; any credential. */
  get() {
    return this.t.data(this.t.http.GET('/v1/whoami', { ...this.t.json() }));
  }
}

/**
 * The live streams (server-sent events, one frame a second): the body as it comes, for an SSE parser
 * (e.g. eventsource-parser); cancelling its reader closes the stream. Refusals are thrown as UmsApiError.
 */
export class LiveClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `GET /v1/live/campaigns`: `event: campaigns` (LiveCampaignsFrame) each second. */
  campaigns() {
    return this.t.stream(this.t.http.GET('/v1/live/campaigns', { ...this.t.download(EVENT_STREAM) }));
  }

  /** `GET /v1/live/campaigns/{campaignId}/runs/{runId}`: `event: history`, then `event: sample` each second. */
  run(campaignId: string, runId: string) {
    const params = { path: { campaignId, runId } };
    const path = '/v1/live/campaigns/{campaignId}/runs/{runId}';
    return this.t.stream(this.t.http.GET(path, { ...this.t.download(EVENT_STREAM), params }));
  }
}
