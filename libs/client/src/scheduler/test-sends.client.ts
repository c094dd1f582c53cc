import type { JsonBodyOf, QueryOf } from '../api.types';
import type { CreateOptions } from '../client.options';
import type { Op, SchedulerTransport } from './scheduler-transport';

/** Test sends of a campaign: its content to a few given recipients on the priority lane. */
export class TestSendsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `POST /v1/campaigns/{campaignId}/test-sends` (202): each recipient PENDING, or SKIPPED when opted out. */
  create(campaignId: string, body: JsonBodyOf<Op['TestSends_create']>, options?: CreateOptions) {
    const params = { path: { campaignId }, header: this.t.idempotency(options) };
    const path = '/v1/campaigns/{campaignId}/test-sends';
    return this.t.data(this.t.http.POST(path, { ...this.t.json(), params, body }));
  }

  /** Newest first. */
  list(campaignId: string, query: QueryOf<Op['TestSends_list']> = {}) {
    const params = { path: { campaignId }, query };
    return this.t.data(
      this.t.http.GET('/v1/campaigns/{campaignId}/test-sends', { ...this.t.json(), params }),
    );
  }

  /** One test send with each recipient's current result. */
  get(campaignId: string, testSendId: string) {
    const params = { path: { campaignId, testSendId } };
    const path = '/v1/campaigns/{campaignId}/test-sends/{testSendId}';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }
}
