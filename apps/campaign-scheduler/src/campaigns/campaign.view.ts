import type { Channel } from '@ums/contracts';
import type { CampaignState, TemplateContent } from '@ums/domain';
import type { RunView } from '../runs/run.view';
import type { ScheduleKind } from './create-campaign.dto';

export interface CampaignView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly template: TemplateContent;
  readonly defaultCountry: string | null;
  readonly schedule: {
    readonly kind: ScheduleKind;
    readonly at: string | null;
    readonly cron: string | null;
    readonly timeZone: string;
  };
  readonly nextFireAt: string | null;
  readonly state: CampaignState;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface CampaignDetailView extends CampaignView {
  readonly audienceSize: number;
  /** Newest first, at most 20; the runs endpoint pages through all of them. */
  readonly runs: readonly RunView[];
}
