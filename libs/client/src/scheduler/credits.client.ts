import type { JsonBodyOf, PathParamOf, QueryOf } from '../api.types';
import type { Op, SchedulerTransport } from './scheduler-transport';

/**
 * A tenant's credits: balances, prices, quotas and ledger (credits:read), and the operator's top-ups,
 * prices and quotas (credits:admin, acting for the tenant the client names with X-Ums-Tenant).
 */
export class CreditsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `GET /v1/credits`: balance and price per channel, quotas and their current use. */
  view() {
    return this.t.data(this.t.http.GET('/v1/credits', { ...this.t.json() }));
  }

  /** `GET /v1/credits/ledger`: newest first; pass `next` as `before` for the next page. */
  ledger(query: QueryOf<Op['Credits_ledger']> = {}) {
    return this.t.data(this.t.http.GET('/v1/credits/ledger', { ...this.t.json(), params: { query } }));
  }

  /** `POST /v1/credits/top-ups`: once per reference (a repeated one answers the first top-up). */
  topUp(body: JsonBodyOf<Op['Credits_topUp']>) {
    return this.t.data(this.t.http.POST('/v1/credits/top-ups', { ...this.t.json(), body }));
  }

  /** `PUT /v1/credits/prices/{channel}`: credits per message (per SMS segment); null: not metered. */
  setPrice(
    channel: PathParamOf<Op['Credits_setPrice'], 'channel'>,
    body: JsonBodyOf<Op['Credits_setPrice']>,
  ) {
    const params = { path: { channel } };
    return this.t.data(this.t.http.PUT('/v1/credits/prices/{channel}', { ...this.t.json(), params, body }));
  }

  /** `PUT /v1/credits/quotas`: messages per UTC day and month (left out: unchanged; null: no cap). */
  setQuotas(body: JsonBodyOf<Op['Credits_setQuotas']>) {
    return this.t.data(this.t.http.PUT('/v1/credits/quotas', { ...this.t.json(), body }));
  }
}
