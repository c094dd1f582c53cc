import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import { MITTO_MAX_BATCH, mittoOutcomes, mittoRequest } from './mitto.request';
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
 * Mitto bulk SMS: up to 1,000 messages per request. Items are classified one by one, so a
 * partial failure retries only the items that failed.
 */
@Injectable()
export class MittoAdapter implements ProviderAdapter<Provider.Mitto> {
  readonly provider = Provider.Mitto;
  readonly maxBatch = MITTO_MAX_BATCH;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  send(
    credential: LoadedCredential<Provider.Mitto>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(
      messages,
      this.maxBatch,
      this.concurrency.of(credential.id),
      control,
      async (chunk) => {
        const { request, refused } = mittoRequest(credential, chunk);
        if (request === undefined) return refusedOutcomes(chunk, refused);
        const result = await exchange(
          this.http,
          this.provider,
          credential.endpoint,
          request,
          control?.signal,
        );
        return result.ok
          ? mittoOutcomes(chunk, refused, result.response, Date.now())
          : bulkOutcomes(chunk, refused, (message) => outcomeFor(message, result.failure));
      },
    );
  }
}
