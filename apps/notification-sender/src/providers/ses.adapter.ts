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
import { sesOutcome, sesRequest } from './ses.request';

/** Amazon SES v2 SendEmail: one SigV4-signed request per e-mail, sent concurrently. */
@Injectable()
export class SesAdapter implements ProviderAdapter<Provider.Ses> {
  readonly provider = Provider.Ses;
  readonly maxBatch = 1;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
  ) {}

  send(
    credential: LoadedCredential<Provider.Ses>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(messages, 1, this.concurrency.of(credential.id), control, async ([message]) => {
      if (message === undefined) return [];
      const built = sesRequest(credential, message, new Date());
      if (!built.ok) return [outcomeFor(message, built.failure)];
      const result = await exchange(
        this.http,
        this.provider,
        credential.endpoint,
        built.request,
        control?.signal,
      );
      return [
        result.ok ? sesOutcome(message, result.response, Date.now()) : outcomeFor(message, result.failure),
      ];
    });
  }
}
