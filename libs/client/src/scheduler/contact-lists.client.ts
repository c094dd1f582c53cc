import type { JsonBodyOf, QueryOf } from '../api.types';
import type { CreateOptions, UploadFile } from '../client.options';
import type { Op, SchedulerTransport } from './scheduler-transport';

/** A tenant's reusable contact lists, their imports and members, and their use as a campaign's audience. */
export class ContactListsClient {
  constructor(private readonly t: SchedulerTransport) {}

  /** `POST /v1/contact-lists`: an empty list (import its members next). */
  create(body: JsonBodyOf<Op['ContactLists_create']>, options?: CreateOptions) {
    const params = { header: this.t.idempotency(options) };
    return this.t.data(this.t.http.POST('/v1/contact-lists', { ...this.t.json(), params, body }));
  }

  /** Newest first. */
  list(query: QueryOf<Op['ContactLists_list']> = {}) {
    return this.t.data(this.t.http.GET('/v1/contact-lists', { ...this.t.json(), params: { query } }));
  }

  get(id: string) {
    const params = { path: { id } };
    return this.t.data(this.t.http.GET('/v1/contact-lists/{id}', { ...this.t.json(), params }));
  }

  /** Deletes the list and its members; refused while one of its imports runs. */
  async delete(id: string): Promise<void> {
    const params = { path: { id } };
    await this.t.data(this.t.http.DELETE('/v1/contact-lists/{id}', { ...this.t.json(), params }));
  }

  /** Members in id order, a page at a time. */
  members(id: string, query: QueryOf<Op['ContactLists_members']> = {}) {
    const params = { path: { id }, query };
    return this.t.data(this.t.http.GET('/v1/contact-lists/{id}/members', { ...this.t.json(), params }));
  }

  /** Streams the CSV; answers once every row has landed (not cut by the timeout). */
  importCsv(id: string, file: UploadFile) {
    const params = { path: { id } };
    return this.t.data(
      this.t.http.POST('/v1/contact-lists/{id}/imports', { ...this.t.upload('file', file), params }),
    );
  }

  /** Answers 202 at once; the import goes on (see getImport). */
  importUrl(id: string, body: JsonBodyOf<Op['ContactLists_importUrl']>) {
    const params = { path: { id } };
    return this.t.data(
      this.t.http.POST('/v1/contact-lists/{id}/imports/url', { ...this.t.json(), params, body }),
    );
  }

  getImport(id: string, importId: string) {
    const params = { path: { id, importId } };
    return this.t.data(
      this.t.http.GET('/v1/contact-lists/{id}/imports/{importId}', { ...this.t.json(), params }),
    );
  }

  /** An import's rejected lines with their reasons. */
  rejects(id: string, importId: string, query: QueryOf<Op['ContactLists_rejects']> = {}) {
    const params = { path: { id, importId }, query };
    const path = '/v1/contact-lists/{id}/imports/{importId}/rejects';
    return this.t.data(this.t.http.GET(path, { ...this.t.json(), params }));
  }

  /** `POST /v1/campaigns/{campaignId}/audience/lists`: the list's members (in the segment) join the audience. */
  useInCampaign(campaignId: string, body: JsonBodyOf<Op['ContactListAudience_use']>) {
    const params = { path: { campaignId } };
    const path = '/v1/campaigns/{campaignId}/audience/lists';
    return this.t.data(this.t.http.POST(path, { ...this.t.json(), params, body }));
  }
}
