import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type BulkSendView,
  CampaignErrorCode,
  type Channel,
  type MessageBatchV1,
  type MessageContentV1,
  type MessageSendView,
  type MessageStatusV1,
  MessageHandlingErrorCode,
  MessageStatus,
  FailureReason,
  type RecipientV1,
  SendLane,
  SendOutcomeCode,
  type SendRequestV1,
  SendRequestKind,
  Topics,
} from '@ums/contracts';
import { addressNormalizerFor, CampaignState, phoneCountry, templateVariables } from '@ums/domain';
import { CodedError, ErrorKind, InvalidInputError, KafkaProducer, NonRetryableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { AudienceImportService } from '../audience/audience-import.service';
import type { CampaignDetailView } from '../campaigns/campaign.view';
import { CampaignsService } from '../campaigns/campaigns.service';
import { CampaignAction, ScheduleKind } from '../campaigns/create-campaign.dto';
import { SendRequestsRepository } from './send-requests.repository';

/** One message to one recipient, as a producer's single request or `POST /v1/messages` gives it. */
export interface SingleSend {
  readonly tenantId: string;
  /** Idempotent per tenant: the same requestId is one message, whichever path it came by. */
  readonly requestId: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly content: MessageContentV1;
  readonly recipient: RecipientV1;
  readonly defaultCountry?: string;
}

/** A campaign from a request (a producer's bulk request or `POST /v1/sends`): inline recipients or a URL. */
export interface BulkSend {
  readonly tenantId: string;
  /** Idempotent per tenant: the same requestId is one campaign. */
  readonly requestId: string;
  readonly campaignName: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly content: MessageContentV1;
  readonly recipients?: readonly RecipientV1[];
  readonly audienceUrl?: string;
  readonly defaultCountry?: string;
  readonly sendAt?: string;
}

/** The request's fields as the campaign API names them, and as the request does. */
const REQUEST_FIELDS: readonly [RegExp, string][] = [
  [/^template(?=\.|$)/, 'content'],
  [/^schedule\.at$/, 'sendAt'],
  [/^url$/, 'audienceUrl'],
];

/**
 * Send requests, from producers on Kafka (SendRequestsConsumer) and over HTTP (SendsController), with
 * the same rules: a single message goes to the priority lane at once (its outcome comes back as status
 * events); a bulk request becomes a campaign with its audience and run. Both are idempotent on the
 * requestId per tenant, so a redelivered or retried request never sends twice. Refusals are coded
 * errors naming the request's field: 400 over HTTP, dead letters with their reason on Kafka.
 */
@Injectable()
export class SendRequestsService {
  constructor(
    private readonly repository: SendRequestsRepository,
    private readonly campaigns: CampaignsService,
    private readonly audience: AudienceImportService,
    private readonly producer: KafkaProducer,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(SendRequestsService.name);
  }

  /** A producer's request from Kafka: refusals become NonRetryableErrors (dead-lettered with their reason). */
  async handle(request: SendRequestV1): Promise<void> {
    try {
      if (request.kind === SendRequestKind.Single) {
        const recipient = request.recipient;
        if (recipient === undefined) {
          throw InvalidInputError.field(
            MessageHandlingErrorCode.RecipientMissing,
            'recipient',
            'is required for a single send',
          );
        }
        await this.single({ ...request, recipient });
      } else {
        await this.bulk({ ...request, campaignName: request.campaignName as string });
      }
    } catch (error: unknown) {
      // Refusals of the request itself cannot succeed on retry: dead-letter them with the reason.
      if (
        error instanceof CodedError &&
        (error.kind === ErrorKind.Invalid || error.kind === ErrorKind.Conflict)
      ) {
        throw new NonRetryableError(error.code, error.message, error.details, { cause: error });
      }
      throw error;
    }
  }

  /**
   * Stores the message (once per tenant and requestId) and publishes it on the priority lane (acks=all),
   * or reports it SKIPPED when the recipient opted out. Resolves once both are durable.
   */
  async single(request: SingleSend): Promise<MessageSendView> {
    const recipient = request.recipient;
    const address = this.normalizedAddress(request);
    const variables = templateVariables(request.content);
    if (!variables.ok) {
      throw InvalidInputError.field(
        CampaignErrorCode.TemplateInvalid,
        requestField(variables.field),
        variables.reason,
      );
    }
    const missing = variables.variables.filter((name) => recipient.variables?.[name] === undefined);
    if (missing.length > 0) {
      throw InvalidInputError.field(
        SendOutcomeCode.VariablesMissing,
        'recipient.variables',
        `lacks ${missing.join(', ')}`,
      );
    }

    const partitionKey = singleSendKey(request.tenantId, request.requestId);
    // Two independent reads at once: the credential's check (which refuses) and the recipient's opt-out.
    const [, optedOut] = await Promise.all([
      this.campaigns.checkCredential(request.tenantId, request.credentialId, request.channel),
      this.repository.isOptedOut(request.tenantId, request.channel, address),
    ]);
    const stored = await this.repository.storeSingle({
      tenantId: request.tenantId,
      requestId: request.requestId,
      partitionKey,
      channel: request.channel,
      credentialId: request.credentialId,
      recipient: address,
      content: request.content,
      variables: recipient.variables,
      optedOut,
    });
    const answer: MessageSendView = {
      requestId: request.requestId,
      messageId: stored.id,
      status: stored.state as MessageStatus,
    };
    if (stored.state === MessageStatus.Skipped) {
      if (stored.created) await this.publishSkipped(request, stored.id, partitionKey, address);
      return answer;
    }
    // Re-published while PENDING (a redelivered request after a crash): the sender's claim dedupes.
    if (stored.state === MessageStatus.Pending) {
      await this.publishPriority(request, stored.id, partitionKey, address);
    }
    return answer;
  }

  /** Creates the campaign, its audience and its run, once per tenant and requestId; resolves once committed. */
  async bulk(request: BulkSend): Promise<BulkSendView> {
    // Lock names are at most 64 characters: the request's key is hashed into one.
    const lock = `ums:bulk:${singleSendKey(request.tenantId, request.requestId)}`;
    return this.repository.withLock(lock, () => this.bulkOnce(request));
  }

  private async bulkOnce(request: BulkSend): Promise<BulkSendView> {
    const campaign = await withRequestFields(() =>
      this.campaigns.create(
        {
          tenantId: request.tenantId,
          name: request.campaignName,
          channel: request.channel,
          credentialId: request.credentialId,
          template: request.content,
          defaultCountry: request.defaultCountry,
          schedule:
            request.sendAt === undefined
              ? { kind: ScheduleKind.Now }
              : { kind: ScheduleKind.At, at: request.sendAt },
        },
        request.requestId,
      ),
    );
    let importId = await this.repository.requestImportId(campaign.id);
    // A redelivered request whose campaign already started: answer what the first one made.
    if (campaign.state !== CampaignState.Draft) {
      return bulkAnswer(request, await this.campaigns.get(campaign.id, request.tenantId), importId);
    }
    importId ??= await withRequestFields(() => this.importAudience(campaign.id, request));
    // The expander waits for a URL import still running before it calls the audience exhausted.
    const detail = await this.campaigns.act(campaign.id, CampaignAction.Start, request.tenantId);
    this.logger.info(
      { requestId: request.requestId, campaignId: campaign.id },
      'Bulk request started a campaign',
    );
    return bulkAnswer(request, detail, importId);
  }

  /** The request's recipients, imported now, or its audience file, fetched in the background. */
  private async importAudience(campaignId: string, request: BulkSend): Promise<string> {
    const { tenantId, recipients, audienceUrl } = request;
    const started =
      recipients !== undefined
        ? await this.audience.importInline(campaignId, tenantId, recipients, 'request')
        : await this.audience.startUrlImport(campaignId, tenantId, audienceUrl as string, 'request');
    return started.id;
  }

  private normalizedAddress(request: SingleSend): string {
    const normalize = addressNormalizerFor(
      request.channel,
      request.defaultCountry === undefined ? undefined : phoneCountry(request.defaultCountry),
    );
    const address = normalize(request.recipient.address);
    if (!address.ok) {
      throw InvalidInputError.field(
        MessageHandlingErrorCode.RecipientInvalid,
        'recipient.address',
        address.reason,
      );
    }
    return address.address;
  }

  private async publishPriority(
    request: SingleSend,
    messageId: string,
    key: string,
    recipient: string,
  ): Promise<void> {
    const variables = request.recipient.variables;
    const batch: MessageBatchV1 = {
      batchId: `single-${messageId}`,
      lane: SendLane.Priority,
      tenantId: request.tenantId,
      campaignId: key,
      seq: 0,
      leaseEpoch: 0,
      credentialId: request.credentialId,
      channel: request.channel,
      content: request.content,
      items: [variables === undefined ? { messageId, recipient } : { messageId, recipient, variables }],
      createdAt: new Date().toISOString(),
    };
    await this.producer.publish(Topics.prioritySends, [batch]);
  }

  private async publishSkipped(
    request: SingleSend,
    messageId: string,
    key: string,
    recipient: string,
  ): Promise<void> {
    const status: MessageStatusV1 = {
      eventId: `skipped-${messageId}`,
      messageId,
      tenantId: request.tenantId,
      campaignId: key,
      channel: request.channel,
      recipient,
      status: MessageStatus.Skipped,
      reason: FailureReason.OptedOut,
      occurredAt: new Date().toISOString(),
    };
    await this.producer.publish(Topics.messageStatus, [status]);
  }
}

/** The partition key and campaign id of a single send: spreads singles over partitions, stable per request. */
export function singleSendKey(tenantId: string, requestId: string): string {
  return `snd_${createHash('sha256').update(`${tenantId}\u0000${requestId}`).digest('base64url').slice(0, 40)}`;
}

/** A field of the campaign API (`template.text`, `schedule.at`) as the request names it. */
function requestField(field: string): string {
  for (const [pattern, name] of REQUEST_FIELDS) if (pattern.test(field)) return field.replace(pattern, name);
  return field;
}

/** Runs `work`, naming the fields of its refusals as the request does (content, sendAt). */
async function withRequestFields<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (!(error instanceof InvalidInputError) || error.fields.length === 0) throw error;
    const fields = error.fields.map((f) => ({ field: requestField(f.field), reason: f.reason }));
    throw new InvalidInputError(
      error.code,
      fields.map((f) => `${f.field}: ${f.reason}`).join('; '),
      fields,
      error.details,
    );
  }
}

function bulkAnswer(
  request: BulkSend,
  campaign: CampaignDetailView,
  importId: string | undefined,
): BulkSendView {
  const runId = campaign.runs[0]?.id;
  return {
    requestId: request.requestId,
    campaignId: campaign.id,
    ...(runId === undefined ? {} : { runId }),
    ...(importId === undefined ? {} : { audienceImportId: importId }),
  };
}
