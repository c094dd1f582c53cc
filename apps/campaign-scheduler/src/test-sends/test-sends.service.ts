import { Injectable } from '@nestjs/common';
import {
  CampaignErrorCode,
  FailureReason,
  type MessageBatchV1,
  MessageStatus,
  type MessageStatusV1,
  SendLane,
  SendOutcomeCode,
  type TestSendPage,
  type TestSendView,
  Topics,
} from '@ums/contracts';
import {
  addressKindOf,
  AddressKind,
  addressNormalizerFor,
  CampaignState,
  compileTemplate,
  type PlannedTestMessage,
  phoneCountry,
  planTestSend,
  type TestSendRequest,
} from '@ums/domain';
import {
  ConflictError,
  InvalidInputError,
  KafkaProducer,
  NotFoundError,
  type TenantFilter,
} from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import type { CampaignView } from '../campaigns/campaign.view';
import { CampaignsRepository } from '../campaigns/campaigns.repository';
import { TestSendsConfig } from './test-sends.config';
import { TestSendsRepository } from './test-sends.repository';

/** A test send as the API takes it, with the caller's tenant and who the caller is. */
export interface TestSendInput extends TestSendRequest {
  readonly tenantId: string;
  readonly campaignId: string;
  readonly actor: string;
  /** The request's Idempotency-Key: a retry finds the first test send and sends nothing more. */
  readonly requestId: string | null;
}

/**
 * Test sends: a campaign's content, rendered for 1 to 10 given recipients, sent as single sends on the
 * priority lane (never through a run: no run is created and no run counter moves), in any campaign
 * state but ARCHIVED. Everything is checked before anything is stored, so the caller sees every
 * refusal at once; each recipient's result is its message's state.
 */
@Injectable()
export class TestSendsService {
  constructor(
    private readonly repository: TestSendsRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly producer: KafkaProducer,
    private readonly config: TestSendsConfig,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(TestSendsService.name);
  }

  /** Stores the test send and its messages, publishes them; resolves once both are durable. */
  async create(input: TestSendInput): Promise<TestSendView> {
    const campaign = await this.campaign(input.campaignId, input.tenantId);
    if (campaign.state === CampaignState.Archived) {
      throw new ConflictError(
        CampaignErrorCode.TestSendCampaignArchived,
        `Campaign ${campaign.id} is ARCHIVED: it takes no test sends`,
      );
    }
    const planned = this.plan(campaign, input);
    const optedOut = await this.repository.optedOut(
      input.tenantId,
      campaign.channel,
      planned.map((m) => m.address),
    );
    const stored = await this.repository.store(
      {
        tenantId: input.tenantId,
        campaignId: campaign.id,
        channel: campaign.channel,
        credentialId: campaign.credentialId,
        content: campaign.template,
        actor: input.actor,
        requestId: input.requestId,
        messages: planned.map((m) => ({
          position: m.position,
          recipient: m.address,
          variables: m.variables,
          optedOut: optedOut.has(m.address),
        })),
      },
      this.config.TEST_SENDS_PER_MINUTE,
    );
    const view = await this.get(campaign.id, stored.id, input.tenantId);
    // A retried request re-publishes what is still PENDING: the sender's claim sends each message once.
    await this.publish(campaign, view, stored.created, planned);
    if (stored.created) {
      this.logger.info(
        { campaignId: campaign.id, testSendId: view.id, recipients: view.recipients.length },
        'Test send stored and published',
      );
    }
    return view;
  }

  async list(campaignId: string, tenant: TenantFilter, limit: number, after?: string): Promise<TestSendPage> {
    await this.campaign(campaignId, tenant);
    const items = await this.repository.list(campaignId, limit + 1, after);
    const page = items.slice(0, limit);
    return { items: page, nextAfter: items.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  async get(campaignId: string, testSendId: string, tenant: TenantFilter): Promise<TestSendView> {
    await this.campaign(campaignId, tenant);
    const view = await this.repository.find(campaignId, testSendId);
    if (view === undefined) {
      throw new NotFoundError(
        CampaignErrorCode.TestSendNotFound,
        `Campaign ${campaignId} has no test send ${testSendId}`,
      );
    }
    return view;
  }

  /** Another tenant's campaign is 404 as a missing one. */
  private async campaign(id: string, tenant: TenantFilter): Promise<CampaignView> {
    const campaign = await this.campaigns.find(id, tenant);
    if (campaign === undefined)
      throw new NotFoundError(CampaignErrorCode.NotFound, `Campaign ${id} not found`);
    return campaign;
  }

  /** The recipients checked and rendered with the campaign's template, or every refusal at once. */
  private plan(campaign: CampaignView, request: TestSendRequest): readonly PlannedTestMessage[] {
    const template = compileTemplate(campaign.template);
    if (!template.ok) {
      throw new ConflictError(
        CampaignErrorCode.TemplateUnusable,
        `Campaign ${campaign.id} has an invalid template: ${template.field}: ${template.reason}`,
      );
    }
    let country: ReturnType<typeof phoneCountry>;
    if (addressKindOf(campaign.channel) === AddressKind.Phone && campaign.defaultCountry !== null) {
      country = phoneCountry(campaign.defaultCountry);
      if (country === undefined) {
        throw new ConflictError(
          CampaignErrorCode.DefaultCountryInvalid,
          `Campaign ${campaign.id} has default country ${campaign.defaultCountry}, which has no phone numbering plan`,
        );
      }
    }
    const plan = planTestSend(request, template.template, addressNormalizerFor(campaign.channel, country));
    if (plan.ok) return plan.messages;
    const fields = plan.problems.map(({ field, reason }) => ({ field, reason }));
    const onlyMissing = plan.problems.every((p) => p.kind === 'missing');
    throw new InvalidInputError(
      onlyMissing ? SendOutcomeCode.VariablesMissing : CampaignErrorCode.TestSendRecipientsInvalid,
      fields.map((f) => `${f.field}: ${f.reason}`).join('; '),
      fields,
    );
  }

  /** PENDING messages as one priority batch (acks=all); SKIPPED ones (opted out) as status events, once. */
  private async publish(
    campaign: CampaignView,
    view: TestSendView,
    created: boolean,
    planned: readonly PlannedTestMessage[],
  ): Promise<void> {
    const variables = new Map(planned.map((m) => [m.address, m.variables]));
    const now = new Date().toISOString();
    const pending = view.recipients.filter((r) => r.state === MessageStatus.Pending);
    if (pending.length > 0) {
      const batch: MessageBatchV1 = {
        batchId: `test-send-${view.id}`,
        lane: SendLane.Priority,
        tenantId: campaign.tenantId,
        campaignId: campaign.id,
        seq: 0,
        leaseEpoch: 0,
        credentialId: campaign.credentialId,
        channel: campaign.channel,
        content: campaign.template,
        items: pending.map((r) => {
          const own = variables.get(r.recipient);
          return own === undefined
            ? { messageId: r.messageId, recipient: r.recipient }
            : { messageId: r.messageId, recipient: r.recipient, variables: { ...own } };
        }),
        createdAt: now,
      };
      await this.producer.publish(Topics.prioritySends, [batch]);
    }
    const skipped = view.recipients.filter((r) => r.state === MessageStatus.Skipped);
    if (!created || skipped.length === 0) return;
    const events: MessageStatusV1[] = skipped.map((r) => ({
      eventId: `skipped-${r.messageId}`,
      messageId: r.messageId,
      tenantId: campaign.tenantId,
      campaignId: campaign.id,
      channel: campaign.channel,
      recipient: r.recipient,
      status: MessageStatus.Skipped,
      reason: FailureReason.OptedOut,
      occurredAt: now,
    }));
    await this.producer.publish(Topics.messageStatus, events);
  }
}
