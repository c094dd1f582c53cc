import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import {
  HttpErrorCode,
  MESSAGE_VIEW,
  MessageErrorCode,
  RUN_MESSAGE_PAGE,
  RunErrorCode,
  Scope,
} from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  ApiFileAnswer,
  Caller,
  type Principal,
  Requires,
  requireTenant,
} from '@ums/platform';
import { FindMessageDto } from './find-message.dto';
import { ListRunMessagesDto } from './list-run-messages.dto';
import { MessageFiltersDto } from './message-filters.dto';
import { MessageIdParamsDto, RunMessagesParamsDto } from './message-params.dto';
import type { MessageView, RunMessagePage } from './message.view';
import { MessagesService } from './messages.service';

const RUN_MESSAGES_CSV_EXAMPLE = [
  'id,recipient,state,attempts,providerMessageId,reason,errorCode,errorText,sentAt,deliveredAt,readAt,failedAt,updatedAt',
  '900123,+4915112345678,DELIVERED,1,SM0123456789abcdef,,,,2026-12-01T08:00:05.000Z,2026-12-01T08:00:07.000Z,,,2026-12-01T08:00:07.000Z',
  '',
].join('\n');

/**
 * Per-message status: a run's messages (JSON pages or a CSV export) and single messages, of the caller's
 * tenant (an operator without X-Ums-Tenant: every tenant's).
 */
@Controller('v1')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Requires(Scope.MessagesRead)
  @ApiAnswer(RUN_MESSAGE_PAGE)
  @ApiErrors({ 404: [RunErrorCode.NotFound] })
  @Get('campaigns/:campaignId/runs/:runId/messages')
  list(
    @Caller() principal: Principal,
    @Param() params: RunMessagesParamsDto,
    @Query() query: ListRunMessagesDto,
  ): Promise<RunMessagePage> {
    return this.messages.listRunMessages(principal.tenantId, params.campaignId, params.runId, query);
  }

  @Requires(Scope.MessagesRead)
  @ApiFileAnswer('text/csv', "the run's messages, one row each", RUN_MESSAGES_CSV_EXAMPLE)
  @ApiErrors({ 404: [RunErrorCode.NotFound] })
  @Get('campaigns/:campaignId/runs/:runId/messages/export.csv')
  async exportCsv(
    @Caller() principal: Principal,
    @Param() params: RunMessagesParamsDto,
    @Query() filters: MessageFiltersDto,
  ): Promise<StreamableFile> {
    const csv = await this.messages.exportRunMessages(
      principal.tenantId,
      params.campaignId,
      params.runId,
      filters,
    );
    return new StreamableFile(csv, {
      type: 'text/csv; charset=utf-8',
      // The run id is digits only (validated), so the file name needs no escaping.
      disposition: `attachment; filename="run-${params.runId}-messages.csv"`,
    });
  }

  /**
   * A single send by the producer's request id (its idempotency key), which is unique per tenant: an
   * operator names the tenant with X-Ums-Tenant (else 400 TENANT_REQUIRED).
   */
  @Requires(Scope.MessagesRead)
  @ApiAnswer(MESSAGE_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired], 404: [MessageErrorCode.NotFound] })
  @Get('messages')
  findByIdempotencyKey(@Caller() principal: Principal, @Query() query: FindMessageDto): Promise<MessageView> {
    return this.messages.findByIdempotencyKey(requireTenant(principal), query.idempotencyKey);
  }

  @Requires(Scope.MessagesRead)
  @ApiAnswer(MESSAGE_VIEW)
  @ApiErrors({ 404: [MessageErrorCode.NotFound] })
  @Get('messages/:id')
  get(@Caller() principal: Principal, @Param() params: MessageIdParamsDto): Promise<MessageView> {
    return this.messages.getMessage(principal.tenantId, params.id);
  }
}
