import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';
import { CAMPAIGN_PRIORITY } from '@ums/contracts';

const { min, max } = CAMPAIGN_PRIORITY;

/** A campaign's priority: an integer 1..10 (chk_campaigns_priority), one message naming the field. */
export function IsCampaignPriority(): PropertyDecorator {
  const message = `priority must be an integer ${min}..${max}`;
  return applyDecorators(IsInt({ message }), Min(min, { message }), Max(max, { message }));
}
