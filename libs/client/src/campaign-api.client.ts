import type { SchedulerPaths } from './api.types';
import type { ClientOptions } from './client.options';
import { HttpTransport } from './http-transport';
import { ApiKeysClient, AuditClient, CredentialsClient } from './scheduler/access.client';
import { AudienceClient, CampaignsClient, RunsClient } from './scheduler/campaigns.client';
import { ContactListsClient } from './scheduler/contact-lists.client';
import { CreditsClient } from './scheduler/credits.client';
import { DeadLettersClient, MessagesClient, OptOutsClient, SendsClient } from './scheduler/messages.client';
import { LiveClient, WhoamiClient } from './scheduler/live.client';
import { StatusRefreshClient } from './scheduler/status-refresh.client';
import { TestSendsClient } from './scheduler/test-sends.client';

/**
 * The campaign API (campaign-scheduler), one group per tag of docs/openapi/campaign-scheduler.json
 * and one method per operation (`Campaigns_create` is `campaigns.create`). Methods answer the
 * documented 2xx body; a refusal throws UmsApiError, no answer UmsNetworkError.
 */
export class CampaignApiClient {
  readonly apiKeys: ApiKeysClient;
  readonly audit: AuditClient;
  readonly credentials: CredentialsClient;
  readonly credits: CreditsClient;
  readonly campaigns: CampaignsClient;
  readonly runs: RunsClient;
  readonly audience: AudienceClient;
  readonly contactLists: ContactListsClient;
  readonly messages: MessagesClient;
  readonly sends: SendsClient;
  readonly optOuts: OptOutsClient;
  readonly deadLetters: DeadLettersClient;
  readonly whoami: WhoamiClient;
  readonly live: LiveClient;
  readonly statusRefresh: StatusRefreshClient;
  readonly testSends: TestSendsClient;
  /** The typed transport (openapi-fetch on the document's paths), e.g. for `baseUrl`. */
  readonly transport: HttpTransport<SchedulerPaths>;

  constructor(options: ClientOptions) {
    const t = new HttpTransport<SchedulerPaths>({
      ...options,
      service: options.service ?? 'the campaign API',
    });
    this.transport = t;
    this.apiKeys = new ApiKeysClient(t);
    this.audit = new AuditClient(t);
    this.credentials = new CredentialsClient(t);
    this.credits = new CreditsClient(t);
    this.campaigns = new CampaignsClient(t);
    this.runs = new RunsClient(t);
    this.audience = new AudienceClient(t);
    this.contactLists = new ContactListsClient(t);
    this.messages = new MessagesClient(t);
    this.sends = new SendsClient(t);
    this.optOuts = new OptOutsClient(t);
    this.deadLetters = new DeadLettersClient(t);
    this.whoami = new WhoamiClient(t);
    this.live = new LiveClient(t);
    this.statusRefresh = new StatusRefreshClient(t);
    this.testSends = new TestSendsClient(t);
  }
}
