import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import { SIMULATOR_MAX_BATCH, simulatorOutcomes, simulatorRequest } from './simulator.request';
import type {
  LoadedCredential,
  OutgoingMessage,
  ProviderAdapter,
  SendControl,
  SendOutcome,
} from './provider-adapter';
import { exchange, sendInRequests } from './provider-exchange';
import { ProviderHttpClient } from './provider-http.client';
import { bulkOutcomes, outcomeFor, refusedOutcomes } from './provider-request';

/**
 * The provider simulator's native API: up to 1,000 messages of any channel per request, each
 * item classified on its own.
 */
@Injectable()
export class SimulatorAdapter implements ProviderAdapter<Provider.Simulator> {
  readonly provider = Provider.Simulator;
  readonly maxBatch = SIMULATOR_MAX_BATCH;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  send(
    credential: LoadedCredential<Provider.Simulator>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(
      messages,
      this.maxBatch,
      this.concurrency.of(credential.id),
      control,
      async (chunk) => {
        const { request, refused } = simulatorRequest(credential, chunk);
        if (request === undefined) return refusedOutcomes(chunk, refused);
        const result = await exchange(
          this.http,
          this.provider,
          credential.endpoint,
          request,
          control?.signal,
        );
        return result.ok
          ? simulatorOutcomes(chunk, refused, result.response, Date.now())
          : bulkOutcomes(chunk, refused, (message) => outcomeFor(message, result.failure));
      },
    );
  }
}
