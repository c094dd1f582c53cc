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
import { twilioOutcome, twilioRequest } from './twilio.request';

/** Twilio Programmable Messaging: one request per message (no bulk endpoint), sent concurrently. */
@Injectable()
export class TwilioAdapter implements ProviderAdapter<Provider.Twilio> {
  readonly provider = Provider.Twilio;
  readonly maxBatch = 1;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  send(
    credential: LoadedCredential<Provider.Twilio>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(messages, 1, this.concurrency.of(credential.id), control, async ([message]) => {
      if (message === undefined) return [];
      const built = twilioRequest(credential, message);
      if (!built.ok) return [outcomeFor(message, built.failure)];
      const result = await exchange(
        this.http,
        this.provider,
        credential.endpoint,
        built.request,
        control?.signal,
      );
      return [
        result.ok ? twilioOutcome(message, result.response, Date.now()) : outcomeFor(message, result.failure),
      ];
    });
  }
}
