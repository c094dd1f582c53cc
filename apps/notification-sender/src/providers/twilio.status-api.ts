import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialConcurrency } from './credential-concurrency';
import type { LoadedCredential, ProviderStatusApi, StatusLookup, StatusQuery } from './provider-adapter';
import { ProviderHttpClient } from './provider-http.client';
import { lookupsUnknown, transportDetail } from './status-lookup';
import {
  twilioAuthorization,
  twilioFetchLookup,
  twilioFetchPath,
  twilioListPage,
  twilioListPath,
  twilioMatch,
} from './twilio.status';

/** Pages of the list resource read for one recipient; more and the row stays unknown. */
const MAX_LIST_PAGES = 5;

/** How far after its claim a send of an UNKNOWN row may have been created (the claim's window). */
export abstract class TwilioMatchWindow {
  abstract readonly matchWindowMs: number;
}

/**
 * Twilio's Message resource by SID (rows whose send named one), and for UNKNOWN rows the list
 * resource filtered by recipient and day, matched by twilioMatch. One message per lookup; a
 * credential's lookups share its concurrency limit with its sends.
 */
@Injectable()
export class TwilioStatusApi implements ProviderStatusApi<Provider.Twilio> {
  readonly provider = Provider.Twilio;
  readonly maxLookupBatch = 1;

  constructor(
    private readonly http: ProviderHttpClient,
    private readonly concurrency: CredentialConcurrency,
    private readonly window: TwilioMatchWindow,
  ) {}

  lookup(
    credential: LoadedCredential<Provider.Twilio>,
    queries: readonly StatusQuery[],
  ): Promise<StatusLookup[]> {
    const limit = this.concurrency.of(credential.id);
    return Promise.all(queries.map((query) => limit.run(() => this.lookupOne(credential, query))));
  }

  private async lookupOne(
    credential: LoadedCredential<Provider.Twilio>,
    query: StatusQuery,
  ): Promise<StatusLookup> {
    const headers = { authorization: twilioAuthorization(credential), accept: 'application/json' };
    try {
      if (query.providerMessageId !== null) {
        const path = twilioFetchPath(credential, query.providerMessageId);
        return twilioFetchLookup(
          query,
          await this.http.get(this.provider, credential.endpoint, path, headers),
        );
      }
      const listed: Record<string, unknown>[] = [];
      let path: string | null = twilioListPath(credential, query);
      for (let page = 0; path !== null; page++) {
        if (page === MAX_LIST_PAGES) {
          return {
            messageId: query.messageId,
            kind: 'unknown',
            detail: 'too many messages to the recipient',
          };
        }
        const answer = twilioListPage(await this.http.get(this.provider, credential.endpoint, path, headers));
        if (typeof answer === 'string')
          return { messageId: query.messageId, kind: 'unknown', detail: answer };
        listed.push(...answer.messages);
        path = answer.next;
      }
      return twilioMatch(credential, query, listed, this.window.matchWindowMs);
    } catch (error: unknown) {
      const [unknown] = lookupsUnknown([query], transportDetail(error));
      return unknown as StatusLookup;
    }
  }
}
