import { createHash } from 'node:crypto';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  AudienceErrorCode,
  BULK_SEND_VIEW,
  type BulkSendView,
  CampaignErrorCode,
  CredentialErrorCode,
  HttpErrorCode,
  MESSAGE_SEND_VIEW,
  MessageHandlingErrorCode,
  type MessageSendView,
  Scope,
  SendOutcomeCode,
} from '@ums/contracts';
import {
  ApiAnswer,
  type ApiErrorMap,
  ApiErrors,
  Caller,
  IdempotencyKey,
  Idempotent,
  type Principal,
  Requires,
  requireTenant,
} from '@ums/platform';
import { ulid } from 'ulid';
import { SendRequestsService } from './send-requests.service';
import { BulkSendDto, SendMessageDto } from './sends.dto';

/** The longest requestId a producer may send on Kafka (SendRequestV1), and the longest stored. */
const MAX_REQUEST_ID_CHARS = 128;

/**
 * The request id of an HTTP send: its Idempotency-Key, so that a retry over HTTP, or the same request
 * sent on Kafka with that requestId, is the same send; a key longer than a requestId may be is hashed.
 * Without a key, a new id: every call is a new send.
 */
export function requestIdOf(key: string | undefined): string {
  if (key === undefined) return `req_${ulid()}`;
  if (key.length <= MAX_REQUEST_ID_CHARS) return key;
  return `idk_${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
}

/** What a bulk send may be refused with: its campaign's rules, then its audience's. */
const BULK_SEND_REFUSALS: ApiErrorMap = {
  400: [
    CampaignErrorCode.ScheduleInvalid,
    CampaignErrorCode.TemplateInvalid,
    CredentialErrorCode.NotFound,
    CredentialErrorCode.ChannelMismatch,
    AudienceErrorCode.UrlInvalid,
    AudienceErrorCode.RecipientsInvalid,
    HttpErrorCode.TenantRequired,
  ],
  409: [CampaignErrorCode.TemplateUnusable, CampaignErrorCode.DefaultCountryInvalid],
  503: [HttpErrorCode.ServiceShuttingDown],
};

/**
 * Sends over HTTP, with the rules of producers' send requests on Kafka (SendRequestsService) but
 * answered at once: bad input is a 400 naming the field instead of a dead letter. Both answer 202 once
 * the request is durable, and take an Idempotency-Key.
 */
@Controller('v1')
export class SendsController {
  constructor(private readonly requests: SendRequestsService) {}

  /** One message on the priority lane: answered once its row is committed and its batch acknowledged by Kafka. */
  @Requires(Scope.MessagesSend)
  @ApiAnswer(MESSAGE_SEND_VIEW)
  @ApiErrors({
    400: [
      CampaignErrorCode.TemplateInvalid,
      SendOutcomeCode.VariablesMissing,
      MessageHandlingErrorCode.RecipientInvalid,
      CredentialErrorCode.NotFound,
      CredentialErrorCode.ChannelMismatch,
      HttpErrorCode.TenantRequired,
    ],
  })
  @Post('messages')
  @HttpCode(202)
  @Idempotent()
  send(
    @Caller() principal: Principal,
    @IdempotencyKey() key: string | undefined,
    @Body() dto: SendMessageDto,
  ): Promise<MessageSendView> {
    return this.requests.single({ ...dto, tenantId: requireTenant(principal), requestId: requestIdOf(key) });
  }

  /** A campaign with its audience and run, started now or at sendAt: answered once they are committed. */
  @Requires(Scope.MessagesSend)
  @ApiAnswer(BULK_SEND_VIEW)
  @ApiErrors(BULK_SEND_REFUSALS)
  @Post('sends')
  @HttpCode(202)
  @Idempotent()
  bulk(
    @Caller() principal: Principal,
    @IdempotencyKey() key: string | undefined,
    @Body() dto: BulkSendDto,
  ): Promise<BulkSendView> {
    return this.requests.bulk({ ...dto, tenantId: requireTenant(principal), requestId: requestIdOf(key) });
  }
}
