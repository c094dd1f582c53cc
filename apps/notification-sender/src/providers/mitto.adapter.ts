import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import { mittoOutcome, mittoRequest } from './mitto.request';
import type {
  LoadedCredential,
  OutgoingMessage,
  ProviderAdapter,
  SendControl,
  SendOutcome,
} from './provider-adapter';
import { exchange, sendInRequests } from './provider-exchange';
import { ProviderHttpClient } from './provider-http.client';
import { outcomeFor } from './provider-request';

/**
 * Mitto SMS: one POST /sms per message (its own `reference`, so each delivery report names our
 * message), sent concurrently within the credential's concurrency. Each message's outcome is its
 * own, so a partial failure retries only the messages that failed. Mitto's /smsbulk is not used:
 * it gives one `reference` to all its receivers, so reports could not name our message.
 */
@Injectable()
export class MittoAdapter implements ProviderAdapter<Provider.Mitto> {
  readonly provider = Provider.Mitto;
  readonly maxBatch = 1;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  send(
    credential: LoadedCredential<Provider.Mitto>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(messages, 1, this.concurrency.of(credential.id), control, async ([message]) => {
      if (message === undefined) return [];
      const built = mittoRequest(credential, message);
      if (!built.ok) return [outcomeFor(message, built.failure)];
      const result = await exchange(
        this.http,
        this.provider,
        credential.endpoint,
        built.request,
        control?.signal,
      );
      return [
        result.ok ? mittoOutcome(message, result.response, Date.now()) : outcomeFor(message, result.failure),
      ];
    });
  }
}
