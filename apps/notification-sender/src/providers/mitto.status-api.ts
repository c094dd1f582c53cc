import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import { mittoStatusLookup, mittoStatusRequest } from './mitto.status';
import type { LoadedCredential, ProviderStatusApi, StatusLookup, StatusQuery } from './provider-adapter';
import { ProviderHttpClient } from './provider-http.client';
import { transportDetail } from './status-lookup';

/**
 * Mitto's status by our `reference` (the convention route of mitto.status.ts): one message per
 * lookup; a credential's lookups share its concurrency limit with its sends.
 */
@Injectable()
export class MittoStatusApi implements ProviderStatusApi<Provider.Mitto> {
  readonly provider = Provider.Mitto;
  readonly maxLookupBatch = 1;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  lookup(
    credential: LoadedCredential<Provider.Mitto>,
    queries: readonly StatusQuery[],
  ): Promise<StatusLookup[]> {
    const limit = this.concurrency.of(credential.id);
    return Promise.all(queries.map((query) => limit.run(() => this.lookupOne(credential, query))));
  }

  private async lookupOne(
    credential: LoadedCredential<Provider.Mitto>,
    query: StatusQuery,
  ): Promise<StatusLookup> {
    const request = mittoStatusRequest(credential, query);
    try {
      const response = await this.http.get(this.provider, credential.endpoint, request.path, request.headers);
      return mittoStatusLookup(query, response);
    } catch (error: unknown) {
      return { messageId: query.messageId, kind: 'unknown', detail: transportDetail(error) };
    }
  }
}
