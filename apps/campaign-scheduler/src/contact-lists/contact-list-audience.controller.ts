import { Body, Controller, Param, Post } from '@nestjs/common';
import {
  CampaignErrorCode,
  ContactListErrorCode,
  HttpErrorCode,
  IMPORT_SUMMARY,
  type ImportSummary,
  Scope,
} from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, type Principal, Requires } from '@ums/platform';
import { ContactListAudienceService } from './contact-list-audience.service';
import { CampaignListParams, UseContactListDto } from './contact-lists.dto';

/**
 * A contact list as (part of) a campaign's audience. Allowed while the campaign takes audience
 * changes, as a CSV import is; answers with the audience import it was recorded as (source `list`).
 */
@Controller('v1/campaigns/:campaignId/audience/lists')
export class ContactListAudienceController {
  constructor(private readonly audience: ContactListAudienceService) {}

  /**
   * Copies the list's members (those in the segment) into the campaign's audience; members already in
   * it are counted as duplicates, so using the list again adds only members added since. Members
   * without a variable the template uses are rejected (line = the line they were imported from).
   */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(IMPORT_SUMMARY)
  @ApiErrors({
    400: [ContactListErrorCode.ChannelMismatch, ContactListErrorCode.SegmentInvalid],
    404: [CampaignErrorCode.NotFound, ContactListErrorCode.NotFound],
    409: [
      CampaignErrorCode.NotEditable,
      CampaignErrorCode.TemplateUnusable,
      CampaignErrorCode.DefaultCountryInvalid,
    ],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post()
  use(
    @Caller() principal: Principal,
    @Param() params: CampaignListParams,
    @Body() dto: UseContactListDto,
  ): Promise<ImportSummary> {
    return this.audience.useList(params.campaignId, principal.tenantId, dto);
  }
}
