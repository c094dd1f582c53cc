import type { SchedulerTransport } from './scheduler-transport';

const PATH = '/v1/campaigns/{campaignId}/runs/{runId}/status-refresh';

/** A run's status refresh: ask the providers now what became of its UNKNOWN and SENT messages. */
export class StatusRefreshClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `POST .../status-refresh` (202): recorded for the senders; nothing is resent. */
  request(campaignId: string, runId: string) {
    const params = { path: { campaignId, runId } };
    return this.t.data(this.t.http.POST(PATH, { ...this.t.json(), params }));
  }

  /** The run's unsettled counts and its latest refresh. */
  get(campaignId: string, runId: string) {
    const params = { path: { campaignId, runId } };
    return this.t.data(this.t.http.GET(PATH, { ...this.t.json(), params }));
  }
}
