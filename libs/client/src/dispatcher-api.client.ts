import type { DispatcherOperations as Op, DispatcherPaths, JsonBodyOf, QueryOf } from './api.types';
import type { ClientOptions, CreateOptions } from './client.options';
import { HttpTransport } from './http-transport';

type DispatcherTransport = HttpTransport<DispatcherPaths>;

/** Webhook subscribers of a tenant. */
export class SubscribersClient {
  constructor(private readonly t: DispatcherTransport) {}

  /** The answer holds the signing secret, shown this once (and on rotate-secret). */
  create(body: JsonBodyOf<Op['Subscribers_create']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/subscribers', { ...this.t.json(), params, body }));
  }

  list(query: QueryOf<Op['Subscribers_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/subscribers', { ...this.t.json(), params: { query } }));
  }

  get(id: string) {
    return this.t.data(
      this.t.http.GET('/v1/subscribers/{id}', { ...this.t.json(), params: { path: { id } } }),
    );
  }

  update(id: string, body: JsonBodyOf<Op['Subscribers_update']>) {
    const params = { path: { id } };
    return this.t.data(this.t.http.PATCH('/v1/subscribers/{id}', { ...this.t.json(), params, body }));
  }

  async delete(id: string): Promise<void> {
    await this.t.data(
      this.t.http.DELETE('/v1/subscribers/{id}', { ...this.t.json(), params: { path: { id } } }),
    );
  }

  /** A new signing secret; the previous one is accepted for a while still. */
  rotateSecret(id: string) {
    const params = { path: { id } };
    return this.t.data(this.t.http.POST('/v1/subscribers/{id}/rotate-secret', { ...this.t.json(), params }));
  }
}

/** A subscriber's deliveries: listed, replayed, and a dead subscriber brought back. */
export class DeliveriesClient {
  constructor(private readonly t: DispatcherTransport) {}

  /** Newest first. */
  list(id: string, query: QueryOf<Op['Deliveries_list']> = {}) {
    const params = { path: { id }, query };
    return this.t.data(this.t.http.GET('/v1/subscribers/{id}/deliveries', { ...this.t.json(), params }));
  }

  /** Attempts a delivered or dead-lettered delivery again. */
  replayOne(id: string, deliveryId: string) {
    const params = { path: { id, deliveryId } };
    const path = '/v1/subscribers/{id}/deliveries/{deliveryId}/replay';
    return this.t.data(this.t.http.POST(path, { ...this.t.json(), params }));
  }

  /** Queues every event since a time again (read from the topics). */
  replaySince(id: string, body: JsonBodyOf<Op['Deliveries_replaySince']>) {
    const params = { path: { id } };
    return this.t.data(this.t.http.POST('/v1/subscribers/{id}/replay', { ...this.t.json(), params, body }));
  }

  /** A DEAD or DISABLED subscriber: what it missed is replayed in order, then it is ALIVE. */
  resurrect(id: string) {
    const params = { path: { id } };
    return this.t.data(this.t.http.POST('/v1/subscribers/{id}/resurrect', { ...this.t.json(), params }));
  }
}

/**
 * The subscriber API (webhook-dispatcher), one group per tag of docs/openapi/webhook-dispatcher.json
 * and one method per operation. Errors as CampaignApiClient's.
 */
export class DispatcherApiClient {
  readonly subscribers: SubscribersClient;
  readonly deliveries: DeliveriesClient;
  readonly transport: DispatcherTransport;

  constructor(options: ClientOptions) {
    const t = new HttpTransport<DispatcherPaths>({
      ...options,
      service: options.service ?? 'the dispatcher API',
    });
    this.transport = t;
    this.subscribers = new SubscribersClient(t);
    this.deliveries = new DeliveriesClient(t);
  }
}
