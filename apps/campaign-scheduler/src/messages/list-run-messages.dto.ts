import { ToInt } from '@ums/platform';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsDecimalId } from './decimal-id.validator';
import { MessageFiltersDto } from './message-filters.dto';

export const MAX_PAGE_SIZE = 1000;

/** GET /v1/campaigns/:campaignId/runs/:runId/messages: filters plus a keyset page. */
export class ListRunMessagesDto extends MessageFiltersDto {
  /** The `nextAfter` of the previous page (a message id). */
  @IsOptional() @IsDecimalId() after?: string;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(MAX_PAGE_SIZE) limit = 100;
}
