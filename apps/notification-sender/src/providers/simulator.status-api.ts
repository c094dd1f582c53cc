import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import type { LoadedCredential, ProviderStatusApi, StatusLookup, StatusQuery } from './provider-adapter';
import { ProviderHttpClient } from './provider-http.client';
import { SIMULATOR_MAX_LOOKUP_BATCH, simulatorLookupRequest, simulatorLookups } from './simulator.status';
import { lookupsUnknown, transportDetail } from './status-lookup';

/** The provider simulator's native lookup: up to 1,000 of our message ids per request. */
@Injectable()
export class SimulatorStatusApi implements ProviderStatusApi<Provider.Simulator> {
  readonly provider = Provider.Simulator;
  readonly maxLookupBatch = SIMULATOR_MAX_LOOKUP_BATCH;

  constructor(private readonly http: ProviderHttpClient) {}

  async lookup(
    credential: LoadedCredential<Provider.Simulator>,
    queries: readonly StatusQuery[],
  ): Promise<StatusLookup[]> {
    if (queries.length === 0) return [];
    const request = simulatorLookupRequest(credential, queries);
    try {
      const response = await this.http.post(
        this.provider,
        credential.endpoint,
        request.path,
        request.headers,
        request.body,
      );
      return simulatorLookups(queries, response);
    } catch (error: unknown) {
      return lookupsUnknown(queries, transportDetail(error));
    }
  }
}
