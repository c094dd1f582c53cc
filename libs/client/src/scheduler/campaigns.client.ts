import type { JsonBodyOf, PathParamOf, QueryOf } from '../api.types';
import type { CreateOptions, UploadFile } from '../client.options';
import type { Op, SchedulerTransport } from './scheduler-transport';

/** Campaigns and their lifecycle. */
export class CampaignsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `POST /v1/campaigns`: a DRAFT campaign. */
  create(body: JsonBodyOf<Op['Campaigns_create']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/campaigns', { ...this.t.json(), params, body }));
  }

  list(query: QueryOf<Op['Campaigns_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/campaigns', { ...this.t.json(), params: { query } }));
  }

  /** A campaign with its audience size and latest runs. */
  get(campaignId: string) {
    const params = { path: { campaignId } };
    return this.t.data(this.t.http.GET('/v1/campaigns/{campaignId}', { ...this.t.json(), params }));
  }

  /** `PATCH /v1/campaigns/{campaignId}`: changes the fields given (priority). */
  update(campaignId: string, body: JsonBodyOf<Op['Campaigns_update']>) {
    const params = { path: { campaignId } };
    return this.t.data(this.t.http.PATCH('/v1/campaigns/{campaignId}', { ...this.t.json(), params, body }));
  }

  /** `POST /v1/campaigns/{campaignId}/{action}`: start, pause, resume, stop or archive. */
  act(campaignId: string, action: PathParamOf<Op['Campaigns_act'], 'action'>) {
    const params = { path: { campaignId, action } };
    return this.t.data(this.t.http.POST('/v1/campaigns/{campaignId}/{action}', { ...this.t.json(), params }));
  }
}

/** The runs of a campaign. */
export class RunsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** Newest first. */
  list(campaignId: string, query: QueryOf<Op['Runs_list']> = {}) {
    const params = { path: { campaignId }, query };
    return this.t.data(this.t.http.GET('/v1/campaigns/{campaignId}/runs', { ...this.t.json(), params }));
  }

  get(campaignId: string, runId: string) {
    const params = { path: { campaignId, runId } };
    return this.t.data(
      this.t.http.GET('/v1/campaigns/{campaignId}/runs/{runId}', { ...this.t.json(), params }),
    );
  }

  /** The run's state changes, oldest first; `after` takes the last id seen. */
  events(campaignId: string, runId: string, query: QueryOf<Op['Runs_events']> = {}) {
    const params = { path: { campaignId, runId }, query };
    const path = '/v1/campaigns/{campaignId}/runs/{runId}/events';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }

  /** The last 15 minutes of the run's activity, per second: messages by stage and its credential's limiter. */
  timeline(campaignId: string, runId: string) {
    const params = { path: { campaignId, runId } };
    const path = '/v1/campaigns/{campaignId}/runs/{runId}/timeline';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }

  /** `POST .../runs/{runId}/{action}`: pause, resume, stop, cancel, retry-failed or resend-unknown. */
  act(campaignId: string, runId: string, action: PathParamOf<Op['Runs_act'], 'action'>) {
    const params = { path: { campaignId, runId, action } };
    const path = '/v1/campaigns/{campaignId}/runs/{runId}/{action}';
    return this.t.data(this.t.http.POST(path, { ...this.t.json(), params }));
  }
}

/** A campaign's audience: imports from a CSV upload, a URL or inline recipients. */
export class AudienceClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** Streams the CSV; answers once every row has landed (not cut by the timeout). */
  uploadCsv(campaignId: string, file: UploadFile) {
    const params = { path: { campaignId } };
    const path = '/v1/campaigns/{campaignId}/audience/csv';
    return this.t.data(this.t.http.POST(path, { ...this.t.upload('file', file), params }));
  }

  /** Answers 202 at once; the import goes on (see getImport). */
  importUrl(campaignId: string, body: JsonBodyOf<Op['Audience_importUrl']>) {
    const params = { path: { campaignId } };
    const path = '/v1/campaigns/{campaignId}/audience/url';
    return this.t.data(this.t.http.POST(path, { ...this.t.json(), params, body }));
  }

  importInline(campaignId: string, body: JsonBodyOf<Op['Audience_importInline']>) {
    const params = { path: { campaignId } };
    const path = '/v1/campaigns/{campaignId}/audience/inline';
    return this.t.data(this.t.http.POST(path, { ...this.t.json(), params, body }));
  }

  /** Newest first. */
  listImports(campaignId: string, query: QueryOf<Op['Audience_listImports']> = {}) {
    const params = { path: { campaignId }, query };
    const path = '/v1/campaigns/{campaignId}/audience/imports';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }

  getImport(campaignId: string, importId: string) {
    const params = { path: { campaignId, importId } };
    const path = '/v1/campaigns/{campaignId}/audience/imports/{importId}';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }

  /** An import's rejected lines with their reasons. */
  rejects(campaignId: string, importId: string, query: QueryOf<Op['Audience_rejects']> = {}) {
    const params = { path: { campaignId, importId }, query };
    const path = '/v1/campaigns/{campaignId}/audience/imports/{importId}/rejects';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }
}
