import { Injectable } from '@nestjs/common';
import {
  type BatchItemV1,
  FailureReason,
  type MessageBatchV1,
  SendLane,
  SendOutcomeCode,
} from '@ums/contracts';
import { compileTemplate, type SendResult, type TemplateContent } from '@ums/domain';
import { jsonColumn } from '@ums/platform';
import type { OutgoingMessage } from '../providers/provider-adapter';
import { type CampaignContent, CampaignContentRepository } from './campaign-content.repository';
import type { ClaimedMessage } from './message-claims.repository';

/** What a single send keeps on its row: the producer's content and the recipient's variables. */
interface StoredSingleSend {
  readonly content?: TemplateContent;
  readonly variables?: Record<string, string> | null;
}

type Rendered =
  | { readonly ok: true; readonly content: TemplateContent }
  | { readonly ok: false; readonly result: SendResult };

/** Claimed messages rendered: those to send, and the results of those that cannot go. */
export interface RenderedClaim {
  /** Results decided without the provider (content refused, credential unusable). */
  readonly results: Map<string, SendResult>;
  readonly outgoing: OutgoingMessage[];
}

/**
 * The content of each claimed message: a single send's from its row, a batch's own, or its
 * campaign's template (compiled once, see CampaignContentRepository), with the recipient's variables.
 * Content that cannot be rendered fails the message permanently (CONTENT_INVALID, VARIABLES_MISSING).
 */
@Injectable()
export class ContentRenderingService {
  constructor(private readonly campaigns: CampaignContentRepository) {}

  /**
   * The campaign's content for a bulk batch without content of its own, read before the claim, so
   * that a database error leaves nothing claimed. Single sends keep their content on the row.
   */
  async campaignContentBefore(batch: MessageBatchV1): Promise<CampaignContent | undefined> {
    if (batch.content !== undefined || batch.lane === SendLane.Priority) return undefined;
    return this.campaigns.contentOf(batch.campaignId);
  }

  /**
   * Renders the claimed messages of a batch. `failAll` (the credential cannot be used) replaces
   * every message's result; `campaign` is the content read before the claim.
   */
  async renderClaimed(
    batch: MessageBatchV1,
    claimed: readonly ClaimedMessage[],
    items: ReadonlyMap<string, BatchItemV1>,
    failAll: (() => SendResult) | undefined,
    campaign: CampaignContent | undefined,
  ): Promise<RenderedClaim> {
    const results = new Map<string, SendResult>();
    const outgoing: OutgoingMessage[] = [];
    for (const message of claimed) {
      if (failAll !== undefined) {
        results.set(message.id, failAll());
        continue;
      }
      const rendered = await this.render(batch, message, items.get(message.id), campaign);
      if (!rendered.ok) results.set(message.id, rendered.result);
      else
        outgoing.push({
          messageId: message.id,
          channel: message.channel,
          recipient: message.recipient,
          content: rendered.content,
        });
    }
    return { results, outgoing };
  }

  private async render(
    batch: MessageBatchV1,
    claimed: ClaimedMessage,
    item: BatchItemV1 | undefined,
    before: CampaignContent | undefined,
  ): Promise<Rendered> {
    let content: TemplateContent;
    let variables: Record<string, string>;
    if (claimed.stored !== null) {
      // A single send: the row keeps what the producer asked for.
      const stored = jsonColumn(claimed.stored) as StoredSingleSend;
      if (stored.content === undefined)
        return refused(SendOutcomeCode.ContentInvalid, 'the message has no content');
      content = stored.content;
      variables = stored.variables ?? {};
    } else if (batch.content !== undefined) {
      content = batch.content;
      variables = item?.variables ?? {};
    } else {
      const campaign = before ?? (await this.campaigns.contentOf(batch.campaignId));
      if (!campaign.ok) return refused(SendOutcomeCode.ContentInvalid, campaign.detail);
      return fromRender(campaign.template.render(item?.variables ?? {}));
    }
    const compiled = compileTemplate(content);
    if (!compiled.ok) return refused(SendOutcomeCode.ContentInvalid, `${compiled.field}: ${compiled.reason}`);
    return fromRender(compiled.template.render(variables));
  }
}

function refused(code: SendOutcomeCode, detail: string): Rendered {
  return { ok: false, result: { kind: 'permanent', reason: FailureReason.Rejected, code, detail } };
}

function fromRender(
  rendered:
    | { readonly ok: true; readonly content: TemplateContent }
    | { readonly ok: false; readonly missing: string[] },
): Rendered {
  return rendered.ok
    ? { ok: true, content: rendered.content }
    : refused(SendOutcomeCode.VariablesMissing, `missing variables: ${rendered.missing.join(', ')}`);
}
