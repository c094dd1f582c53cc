import type { Channel } from '../enums/channel.enum';
import type { MessageContentV1 } from '../messages/message-content.message';
import type { RunView } from './run.view';

/** When a campaign fires: `kind` is now, at or cron. */
export interface CampaignScheduleView {
  readonly kind: string;
  readonly at: string | null;
  readonly cron: string | null;
  readonly timeZone: string;
}

/** A campaign as the campaign API shows it. */
export interface CampaignView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly channel: Channel;
  readonly credentialId: string;
  /** The content sent, with `{{variables}}` in text and subject (libs/domain TemplateContent). */
  readonly template: Readonly<MessageContentV1>;
  readonly defaultCountry: string | null;
  readonly schedule: CampaignScheduleView;
  readonly nextFireAt: string | null;
  /**
   * 1..10 (default 1): the campaign's weight in its credential's fair share while several campaigns
   * send (priority 2 gets twice the rate of priority 1), and the order of due runs (higher first).
   */
  readonly priority: number;
  /** A CampaignState of libs/domain: DRAFT, ACTIVE, PAUSED, STOPPED, COMPLETED or ARCHIVED. */
  readonly state: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface CampaignDetailView extends CampaignView {
  readonly audienceSize: number;
  /** Newest first, at most 20; the runs endpoint pages through all of them. */
  readonly runs: readonly RunView[];
}

/** GET /v1/campaigns. */
export interface CampaignList {
  readonly items: readonly CampaignView[];
}
