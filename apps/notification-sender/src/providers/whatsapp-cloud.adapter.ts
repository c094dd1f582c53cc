import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
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
import { whatsAppOutcome, whatsAppRequest } from './whatsapp-cloud.request';

/** WhatsApp Cloud API: one request per message (the API has no bulk endpoint), sent concurrently. */
@Injectable()
export class WhatsAppCloudAdapter implements ProviderAdapter<Provider.WhatsAppCloud> {
  readonly provider = Provider.WhatsAppCloud;
  readonly maxBatch = 1;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  send(
    credential: LoadedCredential<Provider.WhatsAppCloud>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(messages, 1, this.concurrency.of(credential.id), control, async ([message]) => {
      if (message === undefined) return [];
      const built = whatsAppRequest(credential, message);
      if (!built.ok) return [outcomeFor(message, built.failure)];
      const result = await exchange(
        this.http,
        this.provider,
        credential.endpoint,
        built.request,
        control?.signal,
      );
      return [
        result.ok
          ? whatsAppOutcome(message, result.response, Date.now())
          : outcomeFor(message, result.failure),
      ];
    });
  }
}
