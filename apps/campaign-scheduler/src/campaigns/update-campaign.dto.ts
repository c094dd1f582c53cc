import { IsOptional } from 'class-validator';
import { ApiExample } from '@ums/platform';
import { IsCampaignPriority } from './campaign-priority.validator';

/** PATCH /v1/campaigns/:campaignId: the fields given change, the others stay. */
@ApiExample<UpdateCampaignDto>({ priority: 2 })
export class UpdateCampaignDto {
  /**
   * 1..10: the campaign's weight in its credential's fair share between campaigns, and the order of
   * due runs. A running campaign's batches carry the new priority from the expander's next reading
   * of the run (every EXPANDER_POLL_MS).
   */
  @IsOptional()
  @IsCampaignPriority()
  priority?: number;
}
