import type {
  CampaignDetailView as ApiCampaignDetailView,
  CampaignScheduleView,
  CampaignView as ApiCampaignView,
} from '@ums/contracts';
import type { CampaignState, TemplateContent } from '@ums/domain';
import type { ScheduleKind } from './create-campaign.dto';

/**
 * The campaign views of libs/contracts/src/api (shared with the operator CLI), with the state, content
 * and schedule kind typed as the domain knows them.
 */
export interface CampaignView extends ApiCampaignView {
  readonly template: TemplateContent;
  readonly schedule: CampaignScheduleView & { readonly kind: ScheduleKind };
  readonly state: CampaignState;
}

export interface CampaignDetailView
  extends CampaignView, Pick<ApiCampaignDetailView, 'audienceSize' | 'runs'> {}
