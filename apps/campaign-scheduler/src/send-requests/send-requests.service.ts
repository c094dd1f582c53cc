import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  CampaignErrorCode,
  type ErrorCode,
  type MessageBatchV1,
  type MessageStatusV1,
  MessageHandlingErrorCode,
  MessageStatus,
  FailureReason,
  SendLane,
  SendOutcomeCode,
  type SendRequestV1,
  SendRequestKind,
  Topics,
} from '@ums/contracts';
import { addressNormalizerFor, CampaignState, phoneCountry, templateVariables } from '@ums/domain';
import { CodedError, ErrorKind, KafkaProducer, NonRetryableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { AudienceImportService } from '../audience/audience-import.service';
import { CampaignsService } from '../campaigns/campaigns.service';
import { CampaignAction, ScheduleKind } from '../campaigns/create-campaign.dto';
import { SendRequestsRepository } from './send-requests.repository';

/**
 * Requests from producers: a single message goes to the priority lane at once (its outcome comes
 * back as status events); a bulk request becomes a campaign with its audience and run. Everything
 * is idempotent on the producer's requestId, so redelivery never sends twice.
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

  async handle(request: SendRequestV1): Promise<void> {
    try {
      if (request.kind === SendRequestKind.Single) await this.single(request);
      else await this.bulk(request);
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

  private async single(request: SendRequestV1): Promise<void> {
    const recipient = request.recipient;
    if (recipient === undefined)
      throw refuse(MessageHandlingErrorCode.RecipientMissing, 'recipient is required for a single send');
    await this.campaigns.checkCredential(request.tenantId, request.credentialId, request.channel);
    const normalize = addressNormalizerFor(
      request.channel,
      request.defaultCountry === undefined ? undefined : phoneCountry(request.defaultCountry),
    );
    const address = normalize(recipient.address);
    if (!address.ok)
      throw refuse(MessageHandlingErrorCode.RecipientInvalid, `recipient.address: ${address.reason}`);
    const variables = templateVariables(request.content);
    if (!variables.ok)
      throw refuse(CampaignErrorCode.TemplateInvalid, `content ${variables.field}: ${variables.reason}`);
    const missing = variables.variables.filter((name) => recipient.variables?.[name] === undefined);
    if (missing.length > 0)
      throw refuse(SendOutcomeCode.VariablesMissing, `recipient.variables lacks ${missing.join(', ')}`);

    const partitionKey = singleSendKey(request.tenantId, request.requestId);
    const optedOut = await this.repository.isOptedOut(request.tenantId, request.channel, address.address);
    const stored = await this.repository.storeSingle({
      tenantId: request.tenantId,
      requestId: request.requestId,
      partitionKey,
      channel: request.channel,
      credentialId: request.credentialId,
      recipient: address.address,
      content: request.content,
      variables: recipient.variables,
      optedOut,
    });
    if (stored.state === MessageStatus.Skipped) {
      if (stored.created) await this.publishSkipped(request, stored.id, partitionKey, address.address);
      return;
    }
    // Re-published while PENDING (a redelivered request after a crash): the sender's claim dedupes.
    if (stored.state !== MessageStatus.Pending) return;
    const batch: MessageBatchV1 = {
      batchId: `single-${stored.id}`,
      lane: SendLane.Priority,
      tenantId: request.tenantId,
      campaignId: partitionKey,
      seq: 0,
      leaseEpoch: 0,
      credentialId: request.credentialId,
      channel: request.channel,
      content: request.content,
      items: [
        recipient.variables === undefined
          ? { messageId: stored.id, recipient: address.address }
          : { messageId: stored.id, recipient: address.address, variables: recipient.variables },
      ],
      createdAt: new Date().toISOString(),
    };
    await this.producer.publish(Topics.prioritySends, [batch]);
  }

  private async bulk(request: SendRequestV1): Promise<void> {
    // Lock names are at most 64 characters: the request's key is hashed into one.
    const lock = `ums:bulk:${singleSendKey(request.tenantId, request.requestId)}`;
    await this.repository.withLock(lock, () => this.bulkOnce(request));
  }

  private async bulkOnce(request: SendRequestV1): Promise<void> {
    const campaign = await this.campaigns.create(
      {
        tenantId: request.tenantId,
        name: request.campaignName as string,
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
    );
    if (campaign.state !== CampaignState.Draft) return; // a redelivered request whose campaign already started
    if (!(await this.repository.hasRequestImport(campaign.id))) {
      if (request.recipients !== undefined) {
        await this.audience.importInline(campaign.id, request.tenantId, request.recipients, 'request');
      } else {
        const url = request.audienceUrl as string;
        await this.audience.startUrlImport(campaign.id, request.tenantId, url, 'request');
      }
    }
    // The expander waits for a URL import still running before it calls the audience exhausted.
    await this.campaigns.act(campaign.id, CampaignAction.Start, request.tenantId);
    this.logger.info(
      { requestId: request.requestId, campaignId: campaign.id },
      'Bulk request started a campaign',
    );
  }

  private async publishSkipped(
    request: SendRequestV1,
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

function refuse(code: ErrorCode, message: string): NonRetryableError {
  return new NonRetryableError(code, message);
}
