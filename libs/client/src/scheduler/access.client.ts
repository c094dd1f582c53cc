import type { JsonBodyOf, QueryOf } from '../api.types';
import type { CreateOptions } from '../client.options';
import type { Op, SchedulerTransport } from './scheduler-transport';

/** API keys of a tenant: the operator makes them for the tenant it names. */
export class ApiKeysClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `POST /v1/api-keys`: the answer holds the key, shown this once. */
  create(body: JsonBodyOf<Op['ApiKeys_create']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/api-keys', { ...this.t.json(), params, body }));
  }

  list(query: QueryOf<Op['ApiKeys_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/api-keys', { ...this.t.json(), params: { query } }));
  }

  get(id: string) {
    return this.t.data(this.t.http.GET('/v1/api-keys/{id}', { ...this.t.json(), params: { path: { id } } }));
  }

  /** `DELETE /v1/api-keys/{id}`: the key stays listed, revoked. */
  revoke(id: string) {
    return this.t.data(
      this.t.http.DELETE('/v1/api-keys/{id}', { ...this.t.json(), params: { path: { id } } }),
    );
  }
}

/** The audit trail of state-changing calls and refusals. */
export class AuditClient {
  constructor(private readonly t: SchedulerTransport) {}

  list(query: QueryOf<Op['Audit_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/audit-events', { ...this.t.json(), params: { query } }));
  }
}

/** Provider credentials (their secrets are never answered). */
export class CredentialsClient {
  constructor(private readonly t: SchedulerTransport) {}

  create(body: JsonBodyOf<Op['Credentials_create']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/credentials', { ...this.t.json(), params, body }));
  }

  list(query: QueryOf<Op['Credentials_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/credentials', { ...this.t.json(), params: { query } }));
  }

  get(id: string) {
    return this.t.data(
      this.t.http.GET('/v1/credentials/{id}', { ...this.t.json(), params: { path: { id } } }),
    );
  }

  update(id: string, body: JsonBodyOf<Op['Credentials_update']>) {
    const params = { path: { id } };
    return this.t.data(this.t.http.PATCH('/v1/credentials/{id}', { ...this.t.json(), params, body }));
  }

  /** `GET /v1/credentials/{id}/rate`: its rate limiter per second, the newest rate and congestion events. */
  rate(id: string, query: QueryOf<Op['Credentials_rate']> = {}) {
    const params = { path: { id }, query };
    return this.t.data(this.t.http.GET('/v1/credentials/{id}/rate', { ...this.t.json(), params }));
  }
}
