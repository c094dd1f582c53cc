import type { JsonBodyOf, PathParamOf, QueryOf } from '../api.types';
import type { CreateOptions, UploadFile } from '../client.options';
import type { Op, SchedulerTransport } from './scheduler-transport';

/** Messages: a run's, and single sends by id or by their idempotency key. */
export class MessagesClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** A run's messages, a page at a time. */
  list(campaignId: string, runId: string, query: QueryOf<Op['Messages_list']> = {}) {
    const params = { path: { campaignId, runId }, query };
    const path = '/v1/campaigns/{campaignId}/runs/{runId}/messages';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }

  /** A run's messages as CSV, streamed (not cut by the timeout). */
  exportCsv(campaignId: string, runId: string, query: QueryOf<Op['Messages_exportCsv']> = {}) {
    const params = { path: { campaignId, runId }, query };
    const path = '/v1/campaigns/{campaignId}/runs/{runId}/messages/export.csv';
    return this.t.stream(this.t.http.GET(path, { ...this.t.download('text/csv'), params }));
  }

  /** The single send made with this `Idempotency-Key`. */
  findByIdempotencyKey(query: QueryOf<Op['Messages_findByIdempotencyKey']>) {
    return this.t.data(this.t.http.GET('/v1/messages', { ...this.t.json(), params: { query } }));
  }

  get(id: string) {
    return this.t.data(this.t.http.GET('/v1/messages/{id}', { ...this.t.json(), params: { path: { id } } }));
  }
}

/** Sends over HTTP: one message on the priority lane, or a bulk send in one call (both 202). */
export class SendsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `POST /v1/messages`. */
  send(body: JsonBodyOf<Op['Sends_send']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/messages', { ...this.t.json(), params, body }));
  }

  /** `POST /v1/sends`: inline recipients or an audience URL. */
  bulk(body: JsonBodyOf<Op['Sends_bulk']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/sends', { ...this.t.json(), params, body }));
  }
}

type Channel = PathParamOf<Op['OptOuts_add'], 'channel'>;

/** Opted-out addresses per channel. */
export class OptOutsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** In channel and address order; `address` finds one address in any spelling. */
  list(query: QueryOf<Op['OptOuts_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/opt-outs', { ...this.t.json(), params: { query } }));
  }

  /** Every opt-out (or a channel's) as CSV, streamed (not cut by the timeout). */
  exportCsv(query: QueryOf<Op['OptOuts_exportCsv']> = {}) {
    const params = { query };
    return this.t.stream(
      this.t.http.GET('/v1/opt-outs/export.csv', { ...this.t.download('text/csv'), params }),
    );
  }

  /** A CSV of `channel,address[,source]`, streamed; bad rows come back with their line. */
  importCsv(file: UploadFile, query: QueryOf<Op['OptOuts_importCsv']> = {}) {
    const params = { query };
    return this.t.data(this.t.http.POST('/v1/opt-outs/import', { ...this.t.upload('file', file), params }));
  }

  /** `PUT`: stored normalized; an existing opt-out is kept as it is. */
  add(channel: Channel, address: string, query: QueryOf<Op['OptOuts_add']> = {}) {
    const params = { path: { channel, address }, query };
    return this.t.data(this.t.http.PUT('/v1/opt-outs/{channel}/{address}', { ...this.t.json(), params }));
  }

  /** Opts the address back in. */
  async remove(channel: Channel, address: string, query: QueryOf<Op['OptOuts_remove']> = {}): Promise<void> {
    const params = { path: { channel, address }, query };
    await this.t.data(this.t.http.DELETE('/v1/opt-outs/{channel}/{address}', { ...this.t.json(), params }));
  }
}

/** Kafka messages consumers refused or gave up on. */
export class DeadLettersClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** Newest first. */
  list(query: QueryOf<Op['DeadLetters_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/dead-letters', { ...this.t.json(), params: { query } }));
  }

  /** Publishes them again to the topic they came from: by ids, or by filter. */
  replay(body: JsonBodyOf<Op['DeadLetters_replay']>) {
    return this.t.data(this.t.http.POST('/v1/dead-letters/replay', { ...this.t.json(), body }));
  }

  get(id: string) {
    return this.t.data(
      this.t.http.GET('/v1/dead-letters/{id}', { ...this.t.json(), params: { path: { id } } }),
    );
  }
}
