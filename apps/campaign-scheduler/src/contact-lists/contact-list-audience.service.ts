import { Injectable } from '@nestjs/common';
import { ContactListErrorCode, type ImportSummary } from '@ums/contracts';
import { type ContactListSegment, parseContactListSegment } from '@ums/domain';
import { InvalidInputError, type TenantFilter } from '@ums/platform';
import type { AudienceCampaign, ImportCounters } from '../audience/audience.repository';
import { type AudienceCopyJob, AudienceImportService } from '../audience/audience-import.service';
import { missingVariableReason, requiredVariablesCondition, segmentCondition } from './contact-list-sql';
import { ContactListsConfig } from './contact-lists.config';
import { ContactListsRepository } from './contact-lists.repository';
import { listNotFound } from './contact-lists.service';

/**
 * A contact list as a campaign's audience: its members in the segment are copied into the
 * campaign's contacts, window by window of member ids, one INSERT IGNORE ... SELECT each, recorded as
 * one audience import (source `list`). Addresses dedupe with the campaign's other audience rows, so
 * using a list again adds only members added to it since. Opt-outs are not looked at here: a run
 * applies them when it expands its audience and when each message is claimed.
 */
@Injectable()
export class ContactListAudienceService {
  constructor(
    private readonly lists: ContactListsRepository,
    private readonly audience: AudienceImportService,
    private readonly config: ContactListsConfig,
  ) {}

  async useList(
    campaignId: string,
    tenant: TenantFilter,
    request: { listId: string; segment?: unknown },
  ): Promise<ImportSummary> {
    const parsed = parseContactListSegment(request.segment);
    if (!parsed.ok) {
      throw InvalidInputError.field(ContactListErrorCode.SegmentInvalid, parsed.field, parsed.reason);
    }
    const { listId } = request;
    const check = async (campaign: AudienceCampaign): Promise<void> => {
      // The campaign's tenant's lists only; another tenant's answers as a missing one.
      const list = await this.lists.findForCampaign(listId, campaign.id, tenant);
      if (list === undefined) throw listNotFound(listId, 'listId');
      if (list.channel !== campaign.channel) {
        throw InvalidInputError.field(
          ContactListErrorCode.ChannelMismatch,
          'listId',
          `contact list ${listId} holds ${list.channel} addresses; the campaign sends ${campaign.channel}`,
        );
      }
    };
    return this.audience.importCopied(campaignId, tenant, check, (job) =>
      this.copy(listId, parsed.segment, job),
    );
  }

  private async copy(
    listId: string,
    segment: ContactListSegment,
    job: AudienceCopyJob,
  ): Promise<ImportCounters> {
    const conditions = {
      segment: segmentCondition(segment),
      required: requiredVariablesCondition(job.requiredVariables),
      reason: missingVariableReason(job.requiredVariables),
    };
    let totals: ImportCounters = { read: 0, accepted: 0, rejected: 0, duplicate: 0 };
    let lowId = '0';
    for (;;) {
      if (job.signal.aborted) throw new Error('Stopped at shutdown');
      const highId = await this.lists.windowEnd(listId, lowId, this.config.CONTACT_LIST_COPY_ROWS);
      if (highId === undefined) return totals;
      const counts = await this.lists.copyWindow({
        listId,
        campaignId: job.campaignId,
        importId: job.importId,
        lowId,
        highId,
        ...conditions,
      });
      totals = {
        read: totals.read + counts.matched,
        accepted: totals.accepted + counts.inserted,
        rejected: totals.rejected + counts.rejected,
        duplicate: totals.duplicate + counts.matched - counts.inserted - counts.rejected,
      };
      await job.progress(totals);
      lowId = highId;
    }
  }
}
